// mode: read
// params: project, keys, now
// returns: props
// why: the candidates a new fact may invalidate: same project, subject and predicate, still current.
UNWIND $keys AS k
MATCH (f:Fact)
WHERE f.subject = k.subject AND f.project = $project AND f.predicate = k.predicate
  AND f.expired_at > $now
RETURN f {.*, embedding: null} AS props
