// mode: write
// params: id, projects, now, valid_to
// returns: props
// why: the fact stopped holding at valid_to (event time); the node stays for as-of reads.
MATCH (n:Fact {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now
  AND n.valid_to > $valid_to AND n.valid_from <= $valid_to
SET n.valid_to = $valid_to
RETURN n {.*, embedding: null} AS props
