// mode: read
// params: ids, now
// scope: internal
// returns: new_id, props
// why: an explicit CONTRADICTS link also scopes invalidation, whatever the predicate.
UNWIND $ids AS id
MATCH (n:Fact {id: id})-[:CONTRADICTS]->(f:Fact)
WHERE f.expired_at > $now
RETURN id AS new_id, f {.*, embedding: null} AS props
