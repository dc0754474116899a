// mode: read
// params: ids
// returns: id, text, role, session_id, at
// why: example turns quoted in a reference layer.
UNWIND $ids AS id
MATCH (t:Turn {id: id})
RETURN t.id AS id, t.text AS text, t.role AS role, t.session_id AS session_id,
       t.valid_from AS at
