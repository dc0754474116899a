// mode: read
// params: vector, k, k_search, projects, as_of, known_at
// dialect-only: yes
// why: knowledge candidates for context by embedding (lessons, corrections, facts, topics), with
//      the turns they point back to; score is the cosine similarity (the index yields the cosine distance).
//      Each index returns its k_search nearest over all projects, filtered in the shared branch
//      tails (recall.*_hit fragments), so k_search oversamples.
CALL db.idx.vector.queryNodes('Lesson', 'embedding', $k_search, vecf32($vector)) YIELD node AS n, score
WITH n, 1.0 - score AS score
// include: recall.derived_hit
UNION ALL
CALL db.idx.vector.queryNodes('Correction', 'embedding', $k_search, vecf32($vector)) YIELD node AS n, score
WITH n, 1.0 - score AS score
// include: recall.derived_hit
UNION ALL
CALL db.idx.vector.queryNodes('Fact', 'embedding', $k_search, vecf32($vector)) YIELD node AS n, score
WITH n, 1.0 - score AS score
// include: recall.derived_hit
UNION ALL
CALL db.idx.vector.queryNodes('Topic', 'embedding', $k_search, vecf32($vector)) YIELD node AS n, score
WITH n, 1.0 - score AS score
// include: recall.topic_hit
