// mode: write
// params: ids, at, now
// returns: id
// why: nothing is deleted: closing ends the event interval at `at` (unless it already ended) and
//      expires the record at `now`; already expired records are left alone.
UNWIND $ids AS id
MATCH (n:Turn {id: id})
WHERE n.expired_at > $now
SET n.valid_to = CASE WHEN n.valid_to > $at THEN $at ELSE n.valid_to END,
    n.expired_at = $now
RETURN n.id AS id
