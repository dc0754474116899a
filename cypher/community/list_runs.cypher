// mode: read
// params: project
// returns: node
MATCH (r:CommunityRun {project: $project})
RETURN properties(r) AS node
ORDER BY r.started_at DESC, r.id
