// mode: read
// params: run_id
// scope: internal
// returns: node
MATCH (c:Community {run_id: $run_id})
RETURN properties(c) AS node
ORDER BY c.size DESC, c.id
