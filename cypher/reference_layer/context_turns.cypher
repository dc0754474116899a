// mode: read
// params: rows, project, now
// returns: topic_id, id, text, role, speaker, session_id, at
// why: the two turns before and after each of a topic's mentions (NEXT), quoted when the
//      mentions alone are too little material for a reference layer.
UNWIND $rows AS row
MATCH (:Turn {id: row.turn_id})-[:NEXT*1..2]-(t:Turn)
WHERE t.project = $project AND t.expired_at > $now AND t.role IN ['user', 'assistant']
RETURN DISTINCT row.topic_id AS topic_id, t.id AS id, t.text AS text, t.role AS role,
       t.speaker AS speaker, t.session_id AS session_id, t.valid_from AS at
