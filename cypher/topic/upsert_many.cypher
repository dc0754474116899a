// mode: write
// params: rows
// scope: internal
// returns: n
// why: idempotent by id; rows come from graph.records (no embedding: see set_embeddings).
UNWIND $rows AS row
MERGE (t:Topic {id: row.id})
SET t += row
RETURN count(t) AS n
