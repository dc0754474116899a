// mode: write
// params: rows, now
// returns: old_id, valid_to
// why: scoped invalidation: close the old fact on both axes and record who superseded it. Nothing
//      is deleted; the old record stays queryable as of earlier times.
UNWIND $rows AS row
MATCH (old:Fact {id: row.old_id})
MATCH (new:Fact {id: row.new_id})
SET old.valid_to = row.valid_to, old.expired_at = $now
MERGE (new)-[s:SUPERSEDES]->(old)
ON CREATE SET s.recorded_at = $now, s.valid_from = row.valid_to
RETURN old.id AS old_id, old.valid_to AS valid_to
