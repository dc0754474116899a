// mode: write
// params: rows
// scope: admin
// returns: id
// why: undo: every property a REM action changed goes back to its before-image (a property the
//      action added comes as null, which removes it). The WITH … WHERE precedes the SET.
UNWIND $rows AS row
OPTIONAL MATCH (l:Lesson {id: row.id})
OPTIONAL MATCH (c:Correction {id: row.id})
OPTIONAL MATCH (f:Fact {id: row.id})
OPTIONAL MATCH (t:Topic {id: row.id})
WITH row, coalesce(l, c, f, t) AS n
WHERE n IS NOT NULL
SET n += row.props
RETURN n.id AS id
