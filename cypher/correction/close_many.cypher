// mode: write
// params: rows, now
// returns: id
// why: INVALIDATE in AUDN: the old correction stops holding; never deleted.
UNWIND $rows AS row
MATCH (c:Correction {id: row.id})
WHERE c.expired_at > $now
SET c.valid_to = row.valid_to, c.expired_at = $now
RETURN c.id AS id
