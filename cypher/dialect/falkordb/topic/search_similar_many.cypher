// mode: read
// params: rows, k, project, now
// returns: i, props, similarity
// dialect-only: yes
// why: one round trip for all of a session's topic candidates; row.i is the candidate's index.
//      The project's own topics only; k oversamples the index (it holds every project's topics).
//      FalkorDB's score is a cosine DISTANCE; we return similarity = 1 - distance.
UNWIND $rows AS row
CALL db.idx.vector.queryNodes('Topic', 'embedding', $k, vecf32(row.vector)) YIELD node, score
WITH row, node, score
WHERE node.expired_at > $now AND node.project = $project
RETURN row.i AS i, node {.*, embedding: null} AS props, 1.0 - score AS similarity
ORDER BY i, similarity DESC, props.id
