// mode: write
// params: id, projects, now
// returns: props
// why: the fact was found WRONG: it ends in record time (expired_at = now), its valid interval
//      untouched, so reads at a knownAt before now still show what was believed then.
MATCH (n:Fact {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now
SET n.expired_at = $now
RETURN n {.*, embedding: null} AS props
