// mode: read
// params: ids, projects
// returns: id, props
MATCH (n:Topic)
WHERE n.id IN $ids AND (any(p IN n.projects WHERE p IN $projects) OR '*' IN $projects)
RETURN n.id AS id, n {.*, embedding: null} AS props
