// mode: read
// params: session_id, after, limit, as_of, known_at
// scope: admin
// returns: node, ordinal
// why: a session's turns in order, cursor pagination by ordinal.
MATCH (n:Turn)
WHERE n.session_id = $session_id
  AND n.ordinal > $after
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN n {.*, embedding: null} AS node, n.ordinal AS ordinal
ORDER BY ordinal
LIMIT $limit
