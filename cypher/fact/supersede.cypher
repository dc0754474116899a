// mode: write
// params: rows, now
// scope: internal
// returns: old_id, valid_to
// why: scoped invalidation: a later statement ENDS the old fact in valid time only (valid_to, never
//      expired_at), so as-of reads at knownAt = now keep the history. The valid_to believed until
//      now goes to valid_to_was/valid_to_until (record time it stopped being believed), so reads
//      at an earlier knownAt see the fact as it was known then. valid_to only ever shrinks. The
//      WITH precedes the SET (FalkorDB can drop a SET that a WITH … WHERE follows).
UNWIND $rows AS row
MATCH (old:Fact {id: row.old_id})
MATCH (new:Fact {id: row.new_id})
WITH old, new, row, old.valid_to AS prev, row.valid_to < old.valid_to AS shrink
SET old.valid_to_was = CASE WHEN shrink THEN coalesce(old.valid_to_was, []) + [prev]
                            ELSE old.valid_to_was END,
    old.valid_to_until = CASE WHEN shrink THEN coalesce(old.valid_to_until, []) + [$now]
                              ELSE old.valid_to_until END,
    old.valid_to = CASE WHEN shrink THEN row.valid_to ELSE prev END
MERGE (new)-[s:SUPERSEDES]->(old)
ON CREATE SET s.recorded_at = $now, s.valid_from = row.valid_to
RETURN old.id AS old_id, old.valid_to AS valid_to
