// mode: read
// params: project, job, limit
// returns: node
// why: newest first; `job` null lists every job's runs.
MATCH (j:JobRun {project: $project})
WHERE $job IS NULL OR j.job = $job
RETURN properties(j) AS node
ORDER BY j.started_at DESC, j.id DESC
LIMIT $limit
