// mode: read
// params: ids, projects, as_of, known_at
// returns: kind, id, project, text, confidence, weight, effectiveness, reinforcement, last_seen, half_life_days, status, valid_from, valid_to, turn_id
// why: graph expansion: lessons, corrections and facts derived from the matched turns. The
//      WITH keeps FalkorDB traversing from the turns (otherwise it scans every node).
MATCH (t:Turn)
WHERE t.id IN $ids
MATCH (t)<-[:DERIVED_FROM]-(n)
WITH t, n
WHERE (n:Lesson OR n:Correction OR n:Fact)
  AND (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
RETURN CASE WHEN n:Lesson THEN 'lesson' WHEN n:Correction THEN 'correction' ELSE 'fact' END AS kind,
       n.id AS id, n.project AS project,
       CASE WHEN n:Lesson THEN coalesce(n.title, '') + ': ' + coalesce(n.content, '')
            WHEN n:Correction THEN coalesce(n.rule_text, n.corrected_behaviour, '')
            ELSE coalesce(n.statement, '') END AS text,
       n.confidence AS confidence, n.weight AS weight, n.effectiveness AS effectiveness,
       n.reinforcement AS reinforcement, n.last_seen AS last_seen,
       n.half_life_days AS half_life_days, n.status AS status,
       n.valid_from AS valid_from, n.valid_to AS valid_to, t.id AS turn_id
