// mode: write
// params: rows
// scope: admin
// returns: n
// why: undo: remove the edge a REM action created (matched by type and its creation time, so an
//      edge that existed before the action stays).
UNWIND $rows AS row
OPTIONAL MATCH (l:Lesson {id: row.source_id})
OPTIONAL MATCH (c:Correction {id: row.source_id})
OPTIONAL MATCH (f:Fact {id: row.source_id})
OPTIONAL MATCH (t:Topic {id: row.source_id})
WITH row, coalesce(l, c, f, t) AS a
WHERE a IS NOT NULL
MATCH (a)-[r]->(b)
WHERE b.id = row.target_id AND type(r) = row.type AND r.recorded_at = row.at
DELETE r
RETURN count(*) AS n
