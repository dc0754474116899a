// mode: read
// rows: collected
// params: vector, k, k_search, projects, as_of, known_at
// returns: id, score
// dialect-only: yes
// why: nearest turns by embedding; Neo4j's score is (1 + cos) / 2, returned as the cosine
//      similarity like FalkorDB's file; k_search oversamples before the filter.
CALL db.index.vector.queryNodes('turn_embedding', $k_search, $vector) YIELD node, score
WITH node, score
WHERE (node.project IN $projects OR '*' IN $projects)
  AND node.valid_from <= $as_of AND node.valid_to > $as_of
  AND node.recorded_at <= $known_at AND node.expired_at > $known_at
RETURN node.id AS id, 2.0 * score - 1.0 AS score
ORDER BY score DESC, id
LIMIT $k
