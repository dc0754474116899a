// mode: read
// rows: collected
// params: ids, top, projects, window, vector, scored
// dialect-only: yes
// why: graph expansion and the fields ranking needs in one round trip: the hit turns `ids` plus
//      the turns within `window` steps along NEXT (same session) of the best hits `top`, each with
//      the cosine similarity to the query (null for the turns `scored`: the vector search scored
//      them already); never crosses projects. Neighbour links are read from
//      (session_id, ordinal) by the caller. Not the text: only the few turns that packing looks
//      at need it (`recall.turn_texts`).
// include: recall.turn_neighbourhood
WITH t, s, CASE WHEN $vector IS NULL OR t.embedding IS NULL OR t.id IN $scored THEN null
            ELSE 2.0 * vector.similarity.cosine(t.embedding, $vector) - 1.0 END AS similarity
// include: recall.turn_columns
