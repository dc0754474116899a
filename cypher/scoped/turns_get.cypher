// mode: read
// params: ids, projects
// returns: id, props
MATCH (t:Turn)
WHERE t.id IN $ids AND (t.project IN $projects OR '*' IN $projects)
RETURN t.id AS id, t {.*, embedding: null} AS props
