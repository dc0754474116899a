// mode: write
// params: id, projects, now, valid_to
// returns: props
// why: the user's instruction stopped holding at valid_to (event time), as `scoped.close_fact`
//      does for a fact: kept for as-of reads, the end believed until now kept for earlier knownAt.
MATCH (n:Correction {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now
  AND n.valid_to > $valid_to AND n.valid_from <= $valid_to
WITH n, n.valid_to AS prev
SET n.valid_to_was = coalesce(n.valid_to_was, []) + [prev],
    n.valid_to_until = coalesce(n.valid_to_until, []) + [$now],
    n.valid_to = $valid_to
RETURN n {.*, embedding: null} AS props
