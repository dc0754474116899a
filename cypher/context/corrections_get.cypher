// mode: read
// params: ids, projects
// returns: id, props
UNWIND $ids AS nid
MATCH (n:Correction {id: nid})
WHERE (n.project IN $projects OR '*' IN $projects)
RETURN n.id AS id, n {.*, embedding: null} AS props
