// mode: read
// params: id
// scope: internal
// returns: turn_id, session_id, ordinal
// why: provenance: the turns a Fact was derived from, in conversation order.
MATCH (f:Fact {id: $id})-[:DERIVED_FROM]->(t:Turn)
RETURN t.id AS turn_id, t.session_id AS session_id, t.ordinal AS ordinal
ORDER BY session_id, ordinal
