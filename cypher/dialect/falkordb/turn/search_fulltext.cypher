// mode: read
// params: q, projects, limit, as_of, known_at
// returns: id, score
// dialect-only: yes
// why: RediSearch index on label Turn; score: TF-IDF relevance, higher is better.
CALL db.idx.fulltext.queryNodes('Turn', $q) YIELD node, score
WITH node AS n, score
WHERE ($projects IS NULL OR n.project IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN n.id AS id, score AS score
ORDER BY score DESC, id
LIMIT $limit
