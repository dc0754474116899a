// mode: write
// params: rows
// scope: internal
// returns: n
// why: the FalkorDB vector index only sees vectors written with vecf32().
UNWIND $rows AS row
MATCH (c:Correction {id: row.id})
SET c.embedding = vecf32(row.embedding)
RETURN count(c) AS n
