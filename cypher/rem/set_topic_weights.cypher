// mode: write
// params: rows, now
// scope: internal
// returns: n
UNWIND $rows AS row
MATCH (t:Topic {id: row.id})
SET t.weight = row.weight, t.phase = row.phase, t.weighed_at = $now
RETURN count(t) AS n
