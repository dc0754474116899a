// fragment: yes
// params:
// returns: id, project, session_id, ordinal, speaker, tokens, valid_from, valid_to, quality, similarity, vector_pending
// why: the columns of a candidate turn (`TurnFacts` in graph/repositories/recall.py); the
//      including query binds the turn `t`, its session `s` and `similarity`.
RETURN t.id AS id, t.project AS project, t.session_id AS session_id, t.ordinal AS ordinal,
       t.speaker AS speaker, t.token_estimate AS tokens,
       t.valid_from AS valid_from, t.valid_to AS valid_to,
       s.quality AS quality, similarity AS similarity,
       coalesce(t.embed_pending, false) AS vector_pending
