// fragment: yes
// params: projects, as_of, known_at, k
// why: the tail of one search over topics (each owned by one project): the best
//      readable topics with up to 20 turns of the caller's projects that mention them.
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
OPTIONAL MATCH (t:Turn)-[:MENTIONS]->(n)
WHERE t.project IN $projects OR '*' IN $projects
WITH n, score, collect(t.id) AS tids
WITH n, score, tids[0..20] AS turn_ids
// include: recall.knowledge_columns
