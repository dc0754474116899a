// mode: write
// params: rows
// scope: internal
// returns: n
// why: idempotent by id; rows come from graph.records (no embedding: see set_embeddings).
UNWIND $rows AS row
MERGE (l:Lesson {id: row.id})
SET l += row
RETURN count(l) AS n
