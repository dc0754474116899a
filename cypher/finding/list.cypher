// mode: read
// params: project, status, job, limit
// returns: node
// why: newest first; null filters match everything.
MATCH (f:Finding {project: $project})
WHERE ($status IS NULL OR f.status = $status) AND ($job IS NULL OR f.job = $job)
RETURN properties(f) AS node
ORDER BY f.created_at DESC, f.id
LIMIT $limit
