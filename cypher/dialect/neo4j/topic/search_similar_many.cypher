// mode: read
// params: rows, k, project, now
// returns: i, props, similarity
// dialect-only: yes
// why: one round trip for all of a session's topic candidates; row.i is the candidate's index.
//      The project's own topics only; k oversamples the index (it holds every project's topics).
//      Neo4j's cosine score is (1 + cos) / 2; we return the cosine itself.
UNWIND $rows AS row
CALL db.index.vector.queryNodes('topic_embedding', $k, row.vector) YIELD node, score
WITH row, node, score
WHERE node.expired_at > $now AND node.project = $project
RETURN row.i AS i, node {.*, embedding: null} AS props, 2.0 * score - 1.0 AS similarity
ORDER BY i, similarity DESC, props.id
