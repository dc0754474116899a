// mode: read
// params: ids, top, projects, window, vector
// returns: id, project, session_id, ordinal, speaker, tokens, valid_from, valid_to, quality, similarity
// dialect-only: yes
// why: graph expansion and the fields ranking needs in one round trip: the hit turns `ids` plus
//      the turns within `window` steps along NEXT (same session) of the best hits `top`, each with
//      the cosine similarity to the query; never crosses projects. Neighbour links are read from
//      (session_id, ordinal) by the caller. Not the text: only the few turns that packing looks
//      at need it (`recall.turn_texts`).
MATCH (h:Turn)
WHERE h.id IN $ids AND (h.project IN $projects OR '*' IN $projects)
OPTIONAL MATCH (h)-[:NEXT*1..3]-(n:Turn)
WHERE h.id IN $top AND n.session_id = h.session_id AND abs(n.ordinal - h.ordinal) <= $window
WITH collect(DISTINCT h) + collect(DISTINCT n) AS found
UNWIND found AS t
WITH DISTINCT t
OPTIONAL MATCH (s:Session)-[:HAS_TURN]->(t)
RETURN t.id AS id, t.project AS project, t.session_id AS session_id, t.ordinal AS ordinal,
       t.speaker AS speaker, t.token_estimate AS tokens,
       t.valid_from AS valid_from, t.valid_to AS valid_to,
       s.quality AS quality,
       CASE WHEN $vector IS NULL OR t.embedding IS NULL THEN null ELSE 2.0 * vector.similarity.cosine(t.embedding, $vector) - 1.0 END AS similarity
