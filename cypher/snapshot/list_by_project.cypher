// mode: read
// params: project
// returns: props
MATCH (s:ProjectSnapshot)
WHERE s.project = $project
RETURN properties(s) AS props
ORDER BY s.taken_at, s.id
