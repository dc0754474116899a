// mode: write
// params: old_id, new_id, at, now
// scope: internal
// returns: old_id, new_id
// why: the generic supersede pattern: the new node SUPERSEDES the old one, whose event interval
//      ends at `at` and whose record expires at `now`; the edge is bi-temporal like the nodes.
MATCH (old:Session {id: $old_id})
MATCH (new:Session {id: $new_id})
MERGE (new)-[r:SUPERSEDES]->(old)
ON CREATE SET r.valid_from = $at, r.valid_to = old.valid_to, r.recorded_at = $now,
              r.expired_at = old.expired_at
SET old.valid_to = CASE WHEN old.valid_to > $at THEN $at ELSE old.valid_to END,
    old.expired_at = CASE WHEN old.expired_at > $now THEN $now ELSE old.expired_at END
RETURN old.id AS old_id, new.id AS new_id
