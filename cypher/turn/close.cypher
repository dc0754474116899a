// mode: write
// params: ids, at, now
// knowledge: untouched
// scope: internal
// returns: id
// why: nothing is deleted: closing ends the event interval at `at` (unless it already ended) and
//      expires the record at `now`, for the node and every live relationship touching it (an edge
//      cannot outlive its endpoint); already expired records are left alone. Moves the
//      turn clock.
UNWIND $ids AS id
MATCH (n:Turn {id: id})
WHERE n.expired_at > $now
SET n.valid_to = CASE WHEN n.valid_to > $at THEN $at ELSE n.valid_to END,
    n.expired_at = $now
WITH n
OPTIONAL MATCH (n)-[r]-()
WHERE r.expired_at > $now
SET r.valid_to = CASE WHEN r.valid_to > $at THEN $at ELSE r.valid_to END,
    r.expired_at = $now
WITH collect(DISTINCT n.id) AS changed, collect(DISTINCT n.project) AS changed_in, 'turn' AS change_kind
// include: turn_index.bump
WITH changed, count(*) AS logged
UNWIND changed AS id
RETURN id AS id
