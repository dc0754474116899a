// mode: write
// params: rows
// scope: internal
// returns: count
// why: the FalkorDB vector index only sees vecf32 values. A vector ends the turn's place in the
//      embedding backlog.
UNWIND $rows AS row
MATCH (n:Turn {id: row.id})
SET n.embedding = vecf32(row.embedding), n.embed_pending = null, n.embed_text = null
RETURN count(n) AS count
