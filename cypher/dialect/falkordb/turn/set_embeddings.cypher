// mode: write
// params: rows
// returns: count
// why: the FalkorDB vector index only sees vecf32 values.
UNWIND $rows AS row
MATCH (n:Turn {id: row.id})
SET n.embedding = vecf32(row.embedding)
RETURN count(n) AS count
