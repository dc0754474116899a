// mode: write
// params: rows
// scope: internal
// returns: n
// why: Neo4j stores a plain list of floats; FalkorDB's dialect file wraps it in vecf32().
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.embedding = row.embedding
RETURN count(f) AS n
