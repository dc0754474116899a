// mode: read
// params: ids, projects
// returns: id, props
UNWIND $ids AS nid
MATCH (n:Topic {id: nid})
WHERE (any(p IN n.projects WHERE p IN $projects) OR '*' IN $projects)
RETURN n.id AS id, n {.*, embedding: null} AS props
