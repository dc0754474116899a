// mode: write
// params: rows
// scope: internal
// returns: n
// why: Neo4j stores a plain list of floats; FalkorDB's dialect file wraps it in vecf32().
UNWIND $rows AS row
MATCH (t:Topic {id: row.id})
SET t.embedding = row.embedding
RETURN count(t) AS n
