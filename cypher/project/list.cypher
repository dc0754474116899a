// mode: read
// params: after, limit, as_of, known_at
// scope: admin
// returns: node, id
// why: cursor pagination by id.
MATCH (n:Project)
WHERE n.id > $after
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN n {.*, embedding: null} AS node, n.id AS id
ORDER BY id
LIMIT $limit
