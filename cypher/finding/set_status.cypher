// mode: write
// params: id, status, note, now
// knowledge: untouched
// scope: internal
// returns: node
MATCH (f:Finding {id: $id})
SET f.status = $status, f.review_note = $note, f.reviewed_at = $now
RETURN properties(f) AS node
