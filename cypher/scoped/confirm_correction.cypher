// mode: write
// params: id, projects, now
// returns: props
// why: a human confirmed the correction: it becomes a rule immediately.
MATCH (n:Correction {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now AND n.valid_to > $now
SET n.confirmed = true, n.status = 'rule', n.last_seen = $now
RETURN n {.*, embedding: null} AS props
