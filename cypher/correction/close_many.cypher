// mode: write
// params: rows, now
// scope: internal
// returns: id
// why: INVALIDATE in AUDN: a later statement ends the old correction in valid time only (never
//      expired_at: it was not wrong, it stopped holding); the valid_to believed until now is kept
//      (valid_to_was/valid_to_until) for reads at an earlier knownAt. valid_to only shrinks.
UNWIND $rows AS row
MATCH (c:Correction {id: row.id})
WHERE c.expired_at > $now
WITH c, row, c.valid_to AS prev, row.valid_to < c.valid_to AS shrink
SET c.valid_to_was = CASE WHEN shrink THEN coalesce(c.valid_to_was, []) + [prev]
                          ELSE c.valid_to_was END,
    c.valid_to_until = CASE WHEN shrink THEN coalesce(c.valid_to_until, []) + [$now]
                            ELSE c.valid_to_until END,
    c.valid_to = CASE WHEN shrink THEN row.valid_to ELSE prev END
RETURN c.id AS id
