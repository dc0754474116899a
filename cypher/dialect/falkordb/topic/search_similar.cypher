// mode: read
// params: vector, k, now
// returns: props, similarity
// dialect-only: yes
// why: topics are global (no project filter); FalkorDB's score is a cosine DISTANCE.
CALL db.idx.vector.queryNodes('Topic', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node, score
WHERE node.expired_at > $now
RETURN node {.*, embedding: null} AS props, 1.0 - score AS similarity
ORDER BY similarity DESC, props.id
