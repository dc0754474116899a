// fragment: yes
// params:
// returns: id, session_id, ordinal, speaker, tokens, valid_from, valid_to, recorded_at, expired_at, vector_pending, text, embedding
// why: a turn as the in-process turn index holds it (`IndexedTurn`); the including query binds `t`.
RETURN t.id AS id, t.session_id AS session_id, t.ordinal AS ordinal, t.speaker AS speaker,
       t.token_estimate AS tokens, t.valid_from AS valid_from, t.valid_to AS valid_to,
       t.recorded_at AS recorded_at, t.expired_at AS expired_at,
       coalesce(t.embed_pending, false) AS vector_pending,
       t.text AS text, t.embedding AS embedding
