// mode: read
// params: projects
// returns: speaker, turns
// why: the speaker names a query may mention (query understanding); cached by the service.
MATCH (t:Turn)
WHERE (t.project IN $projects OR '*' IN $projects) AND t.speaker <> ''
RETURN t.speaker AS speaker, count(*) AS turns
ORDER BY turns DESC, speaker
LIMIT 200
