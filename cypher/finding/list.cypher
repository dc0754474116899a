// mode: read
// params: project, status, job, limit
// returns: node
// why: newest first; null filters match everything (a null project: every project's findings,
//      which a REM run over all projects writes under each project, never under `*`).
MATCH (f:Finding)
WHERE ($project IS NULL OR f.project = $project)
  AND ($status IS NULL OR f.status = $status) AND ($job IS NULL OR f.job = $job)
RETURN properties(f) AS node
ORDER BY f.created_at DESC, f.id
LIMIT $limit
