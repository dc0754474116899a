// mode: read
// params: ids, projects
// returns: id, props
MATCH (p:Project)
WHERE p.id IN $ids AND (p.id IN $projects OR '*' IN $projects)
RETURN p.id AS id, properties(p) AS props
