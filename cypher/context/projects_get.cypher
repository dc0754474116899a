// mode: read
// params: ids, projects
// returns: id, props
UNWIND $ids AS pid
MATCH (p:Project {id: pid})
WHERE p.id IN $projects OR '*' IN $projects
RETURN p.id AS id, properties(p) AS props
