// mode: read
// params: run_id
// scope: admin
// returns: props
// why: the actions of one run not undone yet, latest first (undo walks back in time).
MATCH (a:RemAction)
WHERE a.run_id = $run_id AND a.undone_at IS NULL
RETURN properties(a) AS props
ORDER BY a.applied_at DESC, a.seq DESC
