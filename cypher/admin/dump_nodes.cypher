// mode: read
// params:
// returns: labels, props
// why: every node with its properties (embeddings left out), for a fingerprint of the whole
//      graph: `remgraph eval scenarios` proves on a shared database that purging a scenario's
//      project left everything else exactly as it was. Meant for small graphs.
MATCH (n)
RETURN labels(n) AS labels, n {.*, embedding: null} AS props
