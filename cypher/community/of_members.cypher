// mode: read
// params: project, ids
// returns: member_id, community_id, title
// why: the current community of each given knowledge item (for the API and reference layers).
MATCH (r:CommunityRun {project: $project})
WHERE r.current = true
UNWIND $ids AS id
MATCH (c:Community {run_id: r.id})
WHERE id IN c.member_ids
RETURN id AS member_id, c.id AS community_id, c.title AS title
