// mode: write
// params: rows
// scope: internal
// returns: n
// why: idempotent by id; rows come from graph.records (no embedding: see set_embeddings).
UNWIND $rows AS row
MERGE (f:Fact {id: row.id})
SET f += row
RETURN count(f) AS n
