// mode: write
// params: row
// knowledge: untouched
// scope: internal
// returns: id
MERGE (s:ProjectSnapshot {id: $row.id})
SET s += $row
RETURN s.id AS id
