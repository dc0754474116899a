// mode: read
// params: vector, k, k_search, projects, as_of, known_at
// returns: id, score
// dialect-only: yes
// why: nearest turns by embedding. The index returns the k_search nearest over all projects
//      (cosine DISTANCE), filtered here, so k_search oversamples; score is 1 - distance.
CALL db.idx.vector.queryNodes('Turn', 'embedding', $k_search, vecf32($vector)) YIELD node, score
WITH node, score
WHERE (node.project IN $projects OR '*' IN $projects)
  AND node.valid_from <= $as_of AND node.valid_to > $as_of
  AND node.recorded_at <= $known_at AND node.expired_at > $known_at
RETURN node.id AS id, 1.0 - score AS score
ORDER BY score DESC, id
LIMIT $k
