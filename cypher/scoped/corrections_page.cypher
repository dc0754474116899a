// mode: read
// params: projects, project, as_of, known_at, skip, limit
// returns: props
// why: corrections readable by the caller (optionally one project), as of a time.
//      The valid_to as known at $known_at: the first end recorded in valid_to_was whose
//      valid_to_until is later than $known_at, else the current valid_to.
MATCH (n:Correction)
WHERE (n.project IN $projects OR '*' IN $projects)
  AND ($project IS NULL OR n.project = $project)
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                      WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                 n.valid_to) AS vto
WHERE vto > $as_of
RETURN n {.*, embedding: null, valid_to: vto} AS props
ORDER BY n.valid_from DESC, n.id
SKIP $skip
LIMIT $limit
