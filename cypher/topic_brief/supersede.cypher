// mode: write
// params: rows, now
// scope: internal
// returns: old_id, valid_to
// why: a newer brief ENDS the previous one in valid time only (valid_to, never expired_at), as
//      fact.supersede does: the end believed until now goes to valid_to_was/valid_to_until, so a
//      read at an earlier knownAt sees the old brief still open; valid_to only ever shrinks. Its
//      SUMMARISES edge ends with it. The WITH precedes the SET (FalkorDB can drop a SET that a
//      WITH … WHERE follows).
UNWIND $rows AS row
MATCH (old:TopicBrief {id: row.old_id})
MATCH (new:TopicBrief {id: row.new_id})
WITH old, new, row, old.valid_to AS prev, row.valid_to < old.valid_to AS shrink
SET old.valid_to_was = CASE WHEN shrink THEN coalesce(old.valid_to_was, []) + [prev]
                            ELSE old.valid_to_was END,
    old.valid_to_until = CASE WHEN shrink THEN coalesce(old.valid_to_until, []) + [$now]
                              ELSE old.valid_to_until END,
    old.valid_to = CASE WHEN shrink THEN row.valid_to ELSE prev END
MERGE (new)-[s:SUPERSEDES]->(old)
ON CREATE SET s.valid_from = row.valid_to, s.valid_to = new.valid_to, s.recorded_at = $now,
              s.expired_at = new.expired_at
WITH old, row
OPTIONAL MATCH (old)-[e:SUMMARISES]->(:Topic)
SET e.valid_to = CASE WHEN row.valid_to < e.valid_to THEN row.valid_to ELSE e.valid_to END
RETURN old.id AS old_id, old.valid_to AS valid_to
