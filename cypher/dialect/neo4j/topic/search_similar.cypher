// mode: read
// params: vector, k, now
// returns: props, similarity
// dialect-only: yes
// why: topics are global (no project filter); Neo4j's cosine score is (1 + cos) / 2.
CALL db.index.vector.queryNodes('topic_embedding', $k, $vector) YIELD node, score
WITH node, score
WHERE node.expired_at > $now
RETURN node {.*, embedding: null} AS props, 2.0 * score - 1.0 AS similarity
ORDER BY similarity DESC, props.id
