// mode: read
// params: vector, projects, k, fetch, as_of, known_at
// returns: id, score
// dialect-only: yes
// why: FalkorDB yields a cosine DISTANCE (lower is closer): 1 - distance is the cosine similarity.
//      It cannot pre-filter, so `fetch` (k * 4) over-fetches and the filters apply after YIELD.
CALL db.idx.vector.queryNodes('Turn', 'embedding', $fetch, vecf32($vector)) YIELD node, score
WITH node AS n, 1.0 - score AS score
WHERE ($projects IS NULL OR n.project IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN n.id AS id, score AS score
ORDER BY score DESC, id
LIMIT $k
