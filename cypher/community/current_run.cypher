// mode: read
// params: project
// returns: node
MATCH (r:CommunityRun {project: $project})
WHERE r.current = true
RETURN properties(r) AS node
