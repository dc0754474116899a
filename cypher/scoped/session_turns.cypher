// mode: read
// params: session_ids, projects, skip, limit
// returns: session_id, props
// why: turns of several sessions in one round trip (DataLoader batch); the caller slices pages.
MATCH (t:Turn)
WHERE t.session_id IN $session_ids AND (t.project IN $projects OR '*' IN $projects)
  AND t.ordinal >= $skip AND t.ordinal < $skip + $limit
RETURN t.session_id AS session_id, t {.*, embedding: null} AS props
ORDER BY t.ordinal
