// mode: read
// rows: collected
// params: vector, k, projects, as_of, known_at
// returns: id, score
// dialect-only: yes
// why: the exact k nearest turns of a small scope (every embedded turn in it is scored), where
//      the index's nearest over all projects would hold too few of them; the cosine similarity,
//      as `recall.turn_vector` returns it.
MATCH (t:Turn)
WHERE (t.project IN $projects OR '*' IN $projects) AND t.embedding IS NOT NULL
  AND t.valid_from <= $as_of AND t.valid_to > $as_of
  AND t.recorded_at <= $known_at AND t.expired_at > $known_at
WITH t, 2.0 * vector.similarity.cosine(t.embedding, $vector) - 1.0 AS score
RETURN t.id AS id, score
ORDER BY score DESC, id
LIMIT $k
