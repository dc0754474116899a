// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: count
// why: written after the session's knowledge items (and its deferred backlog item), never before.
UNWIND $rows AS row
MATCH (s:Session {id: row.id})
SET s.extracted_through = row.extracted_through
RETURN count(s) AS count
