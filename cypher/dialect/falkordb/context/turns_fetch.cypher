// mode: read
// params: ids, projects, vector
// returns: id, project, session_id, ordinal, speaker, tokens, valid_from, valid_to, quality, similarity
// dialect-only: yes
// why: the fields ranking needs for candidate turns in one round trip, with the cosine similarity
//      to the query for every candidate (expanded ones too); never crosses projects. Not the
//      text: only the few turns that packing looks at need it (`context.turn_texts`).
MATCH (t:Turn)
WHERE t.id IN $ids AND (t.project IN $projects OR '*' IN $projects)
OPTIONAL MATCH (s:Session)-[:HAS_TURN]->(t)
RETURN t.id AS id, t.project AS project, t.session_id AS session_id, t.ordinal AS ordinal,
       t.speaker AS speaker, t.token_estimate AS tokens,
       t.valid_from AS valid_from, t.valid_to AS valid_to,
       s.quality AS quality,
       CASE WHEN $vector IS NULL OR t.embedding IS NULL THEN null ELSE 1.0 - vec.cosineDistance(t.embedding, vecf32($vector)) END AS similarity
