// mode: read
// params: ids, projects, window
// returns: id, neighbours
// why: graph expansion: turns within `window` steps along NEXT (either direction) of each turn.
MATCH (t:Turn)
WHERE t.id IN $ids AND (t.project IN $projects OR '*' IN $projects)
MATCH (t)-[:NEXT*1..3]-(n:Turn)
WHERE n.session_id = t.session_id AND abs(n.ordinal - t.ordinal) <= $window AND n.id <> t.id
RETURN t.id AS id, collect(DISTINCT n.id) AS neighbours
