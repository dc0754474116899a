// mode: read
// params: now
// scope: internal
// returns: props
// why: weights are recomputed globally on ingest (topics are not bound to one project).
MATCH (t:Topic)
WHERE t.expired_at > $now
RETURN t {.*, embedding: null} AS props
ORDER BY t.id
