// mode: write
// params: rows
// scope: internal
// returns: n
// why: the FalkorDB vector index only sees vectors written with vecf32().
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.embedding = vecf32(row.embedding)
RETURN count(f) AS n
