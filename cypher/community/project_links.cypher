// mode: read
// params: now
// scope: internal
// returns: source_id, target_id, type, weight
// why: explicit links between knowledge items (co-occurrence, duplicates, supersession,
//      contradiction); the job keeps those whose both ends are in its node projection.
MATCH (a)-[r:RELATED_TO|DUPLICATE_OF|SUPERSEDES|CONTRADICTS]->(b)
WHERE (a:Topic OR a:Lesson OR a:Correction OR a:Fact)
  AND a.valid_to > $now AND a.expired_at > $now AND b.valid_to > $now AND b.expired_at > $now
RETURN a.id AS source_id, b.id AS target_id, type(r) AS type, r.weight AS weight
