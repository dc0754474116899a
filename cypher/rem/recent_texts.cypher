// mode: read
// params: project, since
// returns: text, source
// why: staleness checks whether an item's keywords match anything asked recently: logged queries
//      (QueryLog nodes) when the API records them, else what users wrote in recent turns.
MATCH (q:QueryLog)
WHERE q.at >= $since AND ($project IS NULL OR q.project = $project)
RETURN q.text AS text, 'query' AS source
UNION ALL
MATCH (t:Turn)
WHERE t.role = 'user' AND t.valid_from >= $since AND ($project IS NULL OR t.project = $project)
RETURN t.text AS text, 'turn' AS source
