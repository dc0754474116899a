// mode: read
// params: vector, k, project, now
// returns: props, similarity
// dialect-only: yes
// why: the project's own topics only; k oversamples the index (it holds every project's
//      topics) before the project filter. FalkorDB's score is a cosine DISTANCE.
CALL db.idx.vector.queryNodes('Topic', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node, score
WHERE node.expired_at > $now AND node.project = $project
RETURN node {.*, embedding: null} AS props, 1.0 - score AS similarity
ORDER BY similarity DESC, props.id
