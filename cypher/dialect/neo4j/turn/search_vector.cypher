// mode: read
// params: vector, projects, k, fetch, as_of, known_at
// returns: id, score
// dialect-only: yes
// why: Neo4j's cosine score is (1 + cos) / 2; 2 * score - 1 gives the cosine similarity that the
//      FalkorDB file returns too. `fetch` (k * 4) over-fetches because filters apply after the index.
CALL db.index.vector.queryNodes('turn_embedding', $fetch, $vector) YIELD node AS n, score
WITH n, 2.0 * score - 1.0 AS score
WHERE ($projects IS NULL OR n.project IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN n.id AS id, score AS score
ORDER BY score DESC, id
LIMIT $k
