// mode: write
// params: rows
// scope: internal
// returns: n
// why: the FalkorDB vector index only sees vectors written with vecf32().
UNWIND $rows AS row
MATCH (t:Topic {id: row.id})
SET t.embedding = vecf32(row.embedding)
RETURN count(t) AS n
