// mode: read
// params: project, as_of, known_at
// returns: props
MATCH (f:Fact)
WHERE f.project = $project
  AND f.valid_from <= $as_of AND f.valid_to > $as_of
  AND f.recorded_at <= $known_at AND f.expired_at > $known_at
RETURN f {.*, embedding: null} AS props
ORDER BY f.valid_from, f.id
