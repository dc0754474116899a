// mode: read
// params: vector, k, project, now
// returns: props, similarity
// dialect-only: yes
// why: FalkorDB's score is a cosine DISTANCE; we return similarity = 1 - distance.
CALL db.idx.vector.queryNodes('Lesson', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node, score
WHERE node.project = $project AND node.expired_at > $now AND node.valid_to > $now
RETURN node {.*, embedding: null} AS props, 1.0 - score AS similarity
ORDER BY similarity DESC, props.id
