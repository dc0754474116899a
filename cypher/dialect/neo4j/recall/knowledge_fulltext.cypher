// mode: read
// params: q, k, cap, projects, as_of, known_at
// returns: kind, id, project, text, score, confidence, weight, effectiveness, reinforcement, last_seen, half_life_days, status, valid_from, valid_to, turn_ids
// dialect-only: yes
// why: knowledge candidates for context (lessons, corrections, facts, topics, reference layers,
//      primers) with the turns they point back to.
//      At most $cap index matches are read per index (best Lucene score first): a word in most documents
//      must not make one query enumerate them all.
CALL db.index.fulltext.queryNodes('lesson_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
OPTIONAL MATCH (n)-[:DERIVED_FROM]->(t:Turn)
RETURN 'lesson' AS kind, n.id AS id, n.project AS project, coalesce(n.title, '') + ': ' + coalesce(n.content, '') AS text, score AS score,
       n.confidence AS confidence, n.weight AS weight, n.effectiveness AS effectiveness,
       n.reinforcement AS reinforcement, n.last_seen AS last_seen,
       n.half_life_days AS half_life_days, n.status AS status,
       n.valid_from AS valid_from, n.valid_to AS valid_to, collect(t.id) AS turn_ids
UNION ALL
CALL db.index.fulltext.queryNodes('correction_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
OPTIONAL MATCH (n)-[:DERIVED_FROM]->(t:Turn)
RETURN 'correction' AS kind, n.id AS id, n.project AS project, coalesce(n.rule_text, n.corrected_behaviour, '') AS text, score AS score,
       n.confidence AS confidence, n.weight AS weight, n.effectiveness AS effectiveness,
       n.reinforcement AS reinforcement, n.last_seen AS last_seen,
       n.half_life_days AS half_life_days, n.status AS status,
       n.valid_from AS valid_from, n.valid_to AS valid_to, collect(t.id) AS turn_ids
UNION ALL
CALL db.index.fulltext.queryNodes('fact_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
OPTIONAL MATCH (n)-[:DERIVED_FROM]->(t:Turn)
RETURN 'fact' AS kind, n.id AS id, n.project AS project, coalesce(n.statement, '') AS text, score AS score,
       n.confidence AS confidence, n.weight AS weight, n.effectiveness AS effectiveness,
       n.reinforcement AS reinforcement, n.last_seen AS last_seen,
       n.half_life_days AS half_life_days, n.status AS status,
       n.valid_from AS valid_from, n.valid_to AS valid_to, collect(t.id) AS turn_ids
UNION ALL
CALL db.index.fulltext.queryNodes('topic_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
WITH n, score
WHERE (any(p IN n.projects WHERE p IN $projects) OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
OPTIONAL MATCH (t:Turn)-[:MENTIONS]->(n)
WHERE t.project IN $projects OR '*' IN $projects
WITH n, score, collect(t.id) AS tids
RETURN 'topic' AS kind, n.id AS id, head(n.projects) AS project, coalesce(n.title, '') AS text,
       score AS score, null AS confidence, n.weight AS weight, null AS effectiveness,
       null AS reinforcement, n.last_seen AS last_seen, null AS half_life_days, n.phase AS status,
       n.valid_from AS valid_from, n.valid_to AS valid_to, tids[0..20] AS turn_ids
UNION ALL
CALL db.index.fulltext.queryNodes('reference_layer_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
RETURN 'reference_layer' AS kind, n.id AS id, n.project AS project,
       coalesce(n.title, '') + ': ' + coalesce(n.text, '') AS text, score AS score,
       null AS confidence, null AS weight, null AS effectiveness, null AS reinforcement,
       null AS last_seen, null AS half_life_days, null AS status,
       n.valid_from AS valid_from, n.valid_to AS valid_to, [] AS turn_ids
UNION ALL
CALL db.index.fulltext.queryNodes('primer_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
RETURN 'primer' AS kind, n.id AS id, n.project AS project, coalesce(n.text, '') AS text,
       score AS score, null AS confidence, null AS weight, null AS effectiveness,
       null AS reinforcement, null AS last_seen, null AS half_life_days, n.period AS status,
       n.valid_from AS valid_from, n.valid_to AS valid_to, [] AS turn_ids
