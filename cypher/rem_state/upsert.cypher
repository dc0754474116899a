// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: id
UNWIND $rows AS row
MERGE (s:RemState {id: row.id})
SET s += row
RETURN s.id AS id
