// mode: write
// params: rows
// scope: internal
// returns: n
// why: Neo4j stores a plain list of floats; FalkorDB's dialect file wraps it in vecf32().
UNWIND $rows AS row
MATCH (l:Lesson {id: row.id})
SET l.embedding = row.embedding
RETURN count(l) AS n
