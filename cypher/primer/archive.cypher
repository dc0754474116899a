// mode: write
// params: ids, now
// scope: internal
// returns: id
// why: a rolled-up source primer is archived (closed: valid_to = now), never deleted.
UNWIND $ids AS id
MATCH (p:Primer {id: id})
WHERE p.valid_to > $now
SET p.valid_to = $now
RETURN p.id AS id
