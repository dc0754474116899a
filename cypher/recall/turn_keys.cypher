// mode: read
// params: projects
// returns: id, source_key, session_id
// why: evaluation: map native turn keys (LoCoMo dialog ids) to stored turn ids.
MATCH (t:Turn)
WHERE t.project IN $projects OR '*' IN $projects
RETURN t.id AS id, t.source_key AS source_key, t.session_id AS session_id
