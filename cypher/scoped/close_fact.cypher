// mode: write
// params: id, projects, now, valid_to
// returns: props
// why: the fact stopped holding at valid_to (event time); the node stays for as-of reads, and the
//      valid_to believed until now is kept (valid_to_was/valid_to_until) for earlier knownAt.
MATCH (n:Fact {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now
  AND n.valid_to > $valid_to AND n.valid_from <= $valid_to
WITH n, n.valid_to AS prev
SET n.valid_to_was = coalesce(n.valid_to_was, []) + [prev],
    n.valid_to_until = coalesce(n.valid_to_until, []) + [$now],
    n.valid_to = $valid_to
RETURN n {.*, embedding: null} AS props
