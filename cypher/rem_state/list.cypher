// mode: read
// params: project
// returns: node
MATCH (s:RemState {project: $project})
RETURN properties(s) AS node
ORDER BY s.job
