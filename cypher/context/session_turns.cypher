// mode: read
// params: reqs, projects
// returns: key, props
// why: one page of turns for each of several sessions in one round trip (DataLoader batch).
UNWIND $reqs AS req
MATCH (t:Turn)
WHERE t.session_id = req.session_id AND (t.project IN $projects OR '*' IN $projects)
  AND t.ordinal >= req.skip AND t.ordinal < req.skip + req.limit
RETURN req.key AS key, t {.*, embedding: null} AS props
ORDER BY key, t.ordinal
