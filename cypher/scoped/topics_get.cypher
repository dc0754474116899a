// mode: read
// params: ids, projects
// returns: id, props
MATCH (n:Topic)
WHERE n.id IN $ids AND (n.project IN $projects OR '*' IN $projects)
RETURN n.id AS id, n {.*, embedding: null} AS props
