// mode: read
// params: ids, projects
// returns: id, props
UNWIND $ids AS sid
MATCH (s:Session {id: sid})
WHERE s.project IN $projects OR '*' IN $projects
RETURN s.id AS id, properties(s) AS props
