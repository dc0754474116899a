// mode: read
// params: project, now
// returns: item_id, turn_id, session_id
// why: shared provenance edges: knowledge items derived from (or topics mentioned in) the same
//      turns and sessions. One query for the whole graph.
MATCH (n)-[:DERIVED_FROM]->(t:Turn)
WHERE (n:Lesson OR n:Correction OR n:Fact) AND n.valid_to > $now AND n.expired_at > $now
  AND ($project IS NULL OR n.project = $project)
RETURN n.id AS item_id, t.id AS turn_id, t.session_id AS session_id
UNION ALL
MATCH (t:Turn)-[:MENTIONS]->(n:Topic)
WHERE n.valid_to > $now AND n.expired_at > $now AND ($project IS NULL OR t.project = $project)
RETURN n.id AS item_id, t.id AS turn_id, t.session_id AS session_id
