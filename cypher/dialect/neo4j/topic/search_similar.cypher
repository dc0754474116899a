// mode: read
// params: vector, k, project, now
// returns: props, similarity
// dialect-only: yes
// why: the project's own topics only; k oversamples the index (it holds every project's
//      topics) before the project filter. Neo4j's cosine score is (1 + cos) / 2.
CALL db.index.vector.queryNodes('topic_embedding', $k, $vector) YIELD node, score
WITH node, score
WHERE node.expired_at > $now AND node.project = $project
RETURN node {.*, embedding: null} AS props, 2.0 * score - 1.0 AS similarity
ORDER BY similarity DESC, props.id
