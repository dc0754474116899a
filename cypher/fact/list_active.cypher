// mode: read
// params: project, as_of, known_at
// returns: props
// why: facts of a project as of an event time, as recorded at a record time.
//      The valid_to as known at $known_at: the first end recorded in valid_to_was whose
//      valid_to_until is later than $known_at, else the current valid_to.
MATCH (f:Fact)
WHERE f.project = $project
  AND f.valid_from <= $as_of
  AND f.recorded_at <= $known_at AND f.expired_at > $known_at
WITH f, coalesce(head([i IN range(0, size(coalesce(f.valid_to_until, [])) - 1)
                      WHERE f.valid_to_until[i] > $known_at | f.valid_to_was[i]]),
                 f.valid_to) AS vto
WHERE vto > $as_of
RETURN f {.*, embedding: null, valid_to: vto} AS props
ORDER BY f.valid_from, f.id
