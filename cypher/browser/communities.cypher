// Browser guide: the current community run of a project, its communities and their members.
// :param project => 'my-project'
// params: project
MATCH (r:CommunityRun {project: $project, current: true})
MATCH (m)-[i:IN_COMMUNITY]->(c:Community {run_id: r.id})
RETURN r, c, i, m
LIMIT 500
