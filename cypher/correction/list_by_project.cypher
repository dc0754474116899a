// mode: read
// params: project, now
// returns: props
MATCH (c:Correction)
WHERE c.project = $project AND c.expired_at > $now AND c.valid_to > $now
RETURN c {.*, embedding: null} AS props
ORDER BY c.first_seen, c.id
