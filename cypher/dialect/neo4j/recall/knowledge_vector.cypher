// mode: read
// rows: collected
// params: vector, k, k_search, projects, as_of, known_at
// dialect-only: yes
// why: knowledge candidates for context by embedding (lessons, corrections, facts, topics), with
//      the turns they point back to; score is the cosine similarity (the index scores (1 + cos) / 2).
//      Each index returns its k_search nearest over all projects, filtered in the shared branch
//      tails (recall.*_hit fragments), so k_search oversamples.
CALL db.index.vector.queryNodes('lesson_embedding', $k_search, $vector) YIELD node AS n, score
WITH n, 2.0 * score - 1.0 AS score
// include: recall.derived_hit
UNION ALL
CALL db.index.vector.queryNodes('correction_embedding', $k_search, $vector) YIELD node AS n, score
WITH n, 2.0 * score - 1.0 AS score
// include: recall.derived_hit
UNION ALL
CALL db.index.vector.queryNodes('fact_embedding', $k_search, $vector) YIELD node AS n, score
WITH n, 2.0 * score - 1.0 AS score
// include: recall.derived_hit
UNION ALL
CALL db.index.vector.queryNodes('topic_embedding', $k_search, $vector) YIELD node AS n, score
WITH n, 2.0 * score - 1.0 AS score
// include: recall.topic_hit
