// mode: write
// params: rows
// scope: internal
// returns: n
UNWIND $rows AS row
MATCH (t:Topic {id: row.id})
SET t.weight = row.weight, t.phase = row.phase
RETURN count(t) AS n
