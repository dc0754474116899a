// mode: write
// params: rows
// scope: internal
// returns: count
// why: Neo4j stores a plain LIST<FLOAT>; FalkorDB needs vecf32 (dialect file). A vector ends the
//      turn's place in the embedding backlog.
UNWIND $rows AS row
MATCH (n:Turn {id: row.id})
SET n.embedding = row.embedding, n.embed_pending = null, n.embed_text = null
RETURN count(n) AS count
