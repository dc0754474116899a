// mode: read
// params: project
// returns: props
// why: every fact record of a project, closed ones included (history, tests, exports).
MATCH (f:Fact)
WHERE f.project = $project
RETURN f {.*, embedding: null} AS props
ORDER BY f.valid_from, f.id
