// mode: read
// params: vector, k, project, now
// returns: props, similarity
// dialect-only: yes
// why: Neo4j's cosine score is (1 + cos) / 2; we return the cosine itself.
CALL db.index.vector.queryNodes('correction_embedding', $k, $vector) YIELD node, score
WITH node, score
WHERE node.project = $project AND node.expired_at > $now AND node.valid_to > $now
RETURN node {.*, embedding: null} AS props, 2.0 * score - 1.0 AS similarity
ORDER BY similarity DESC, props.id
