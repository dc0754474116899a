// mode: read
// params:
// returns: labels, id, props
// why: a whole-database picture (embeddings aside) taken before and after an evaluation on a
//      shared database, to prove it left everything else as it found it.
MATCH (n)
RETURN labels(n) AS labels, n.id AS id, n {.*, embedding: null} AS props
