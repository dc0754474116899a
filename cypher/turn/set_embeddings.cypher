// mode: write
// params: rows
// returns: count
// why: Neo4j stores a plain LIST<FLOAT>; FalkorDB needs vecf32 (dialect file).
UNWIND $rows AS row
MATCH (n:Turn {id: row.id})
SET n.embedding = row.embedding
RETURN count(n) AS count
