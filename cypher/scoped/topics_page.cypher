// mode: read
// params: projects, project, as_of, known_at, skip, limit
// returns: props
// why: topics readable by the caller (optionally one project), as of a time.
MATCH (n:Topic)
WHERE (n.project IN $projects OR '*' IN $projects)
  AND ($project IS NULL OR n.project = $project)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN n {.*, embedding: null} AS props
ORDER BY n.weight DESC, n.id
SKIP $skip
LIMIT $limit
