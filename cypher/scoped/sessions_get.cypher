// mode: read
// params: ids, projects
// returns: id, props
MATCH (s:Session)
WHERE s.id IN $ids AND (s.project IN $projects OR '*' IN $projects)
RETURN s.id AS id, properties(s) AS props
