// mode: read
// params: projects, after, limit
// returns: id, session_id, ordinal, speaker, tokens, valid_from, valid_to, recorded_at, expired_at, vector_pending, text, embedding
// why: one page of a project's turns, by id after `after`, to load the in-process turn index.
MATCH (t:Turn)
WHERE t.project IN $projects AND t.id > $after
WITH t
ORDER BY t.id
LIMIT $limit
// include: turn_index.columns
