// mode: read
// params: rows
// scope: internal
// returns: session_id, ordinal, id
// why: resolves the predecessor of the first turn of a batch (by session and ordinal) for NEXT.
UNWIND $rows AS row
MATCH (t:Turn {session_id: row.session_id})
WHERE t.ordinal = row.ordinal
RETURN row.session_id AS session_id, row.ordinal AS ordinal, t.id AS id
