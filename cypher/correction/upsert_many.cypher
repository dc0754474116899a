// mode: write
// params: rows
// scope: internal
// returns: n
// why: idempotent by id; rows come from graph.records (no embedding: see set_embeddings).
UNWIND $rows AS row
MERGE (c:Correction {id: row.id})
SET c += row
RETURN count(c) AS n
