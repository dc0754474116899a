// mode: read
// params: id
// scope: internal
// returns: turn_id, session_id, ordinal
MATCH (t:Turn)-[:MENTIONS]->(p:Topic {id: $id})
RETURN t.id AS turn_id, t.session_id AS session_id, t.ordinal AS ordinal
ORDER BY session_id, ordinal
