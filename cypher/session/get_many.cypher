// mode: read
// params: ids, as_of, known_at
// scope: internal
// returns: node
// why: batch lookup (DataLoader-friendly); the repository restores the order of `ids`.
UNWIND $ids AS id
MATCH (n:Session {id: id})
WHERE n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN n {.*, embedding: null} AS node
