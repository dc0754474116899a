// mode: read
// params: projects, project, as_of, known_at, skip, limit
// returns: props
// why: sessions of the readable projects (optionally one), newest first, as of a time.
MATCH (s:Session)
WHERE (s.project IN $projects OR '*' IN $projects)
  AND ($project IS NULL OR s.project = $project)
  AND s.valid_from <= $as_of AND s.valid_to > $as_of
  AND s.recorded_at <= $known_at AND s.expired_at > $known_at
RETURN properties(s) AS props
ORDER BY s.valid_from DESC, s.id
SKIP $skip
LIMIT $limit
