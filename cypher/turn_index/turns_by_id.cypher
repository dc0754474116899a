// mode: read
// params: projects, ids
// returns: id, session_id, ordinal, speaker, tokens, valid_from, valid_to, recorded_at, expired_at, vector_pending, text, embedding
// why: the turns of a project among `ids` (those a write changed), to refresh the turn index.
UNWIND $ids AS id
MATCH (t:Turn {id: id})
WHERE t.project IN $projects
// include: turn_index.columns
