// mode: write
// params: rows
// scope: internal
// returns: n
// why: the FalkorDB vector index only sees vectors written with vecf32().
UNWIND $rows AS row
MATCH (l:Lesson {id: row.id})
SET l.embedding = vecf32(row.embedding)
RETURN count(l) AS n
