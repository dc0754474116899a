// mode: read
// params: project, as_of, known_at, with_history
// returns: source_id, type, target_id, props
// why: turns are left out of an export, so what runs through them is folded onto their session:
//      a session MENTIONS a topic and a lesson, correction or fact is DERIVED_FROM a session,
//      each with the number of turns behind it.
MATCH (s:Session)-[:HAS_TURN]->(t:Turn)-[:MENTIONS]->(k:Topic)
WHERE s.project = $project AND k.project = $project
  AND ($with_history
       OR (t.valid_from <= $as_of AND t.valid_to > $as_of
           AND t.recorded_at <= $known_at AND t.expired_at > $known_at))
WITH s, k, count(DISTINCT t) AS turns
RETURN s.id AS source_id, 'MENTIONS' AS type, k.id AS target_id, {turns: turns} AS props
UNION ALL
MATCH (x)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
WHERE s.project = $project AND x.project = $project
  AND ($with_history
       OR (t.valid_from <= $as_of AND t.valid_to > $as_of
           AND t.recorded_at <= $known_at AND t.expired_at > $known_at))
WITH x, s, count(DISTINCT t) AS turns
RETURN x.id AS source_id, 'DERIVED_FROM' AS type, s.id AS target_id, {turns: turns} AS props
