// mode: read
// params: ids, projects
// returns: id, props
UNWIND $ids AS tid
MATCH (t:Turn {id: tid})
WHERE t.project IN $projects OR '*' IN $projects
RETURN t.id AS id, t {.*, embedding: null} AS props
