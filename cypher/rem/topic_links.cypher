// mode: read
// params: now
// scope: internal
// returns: source_id, target_id, weight
MATCH (a:Topic)-[r:RELATED_TO]->(b:Topic)
WHERE a.valid_to > $now AND a.expired_at > $now AND b.valid_to > $now AND b.expired_at > $now
RETURN a.id AS source_id, b.id AS target_id, r.weight AS weight
