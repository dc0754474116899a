// fragment: yes
// params: projects, as_of, known_at, k
// why: the tail of one search over reference layers or primers: the best readable items (they
//      point back to no single turn).
// include: recall.best_in_scope
WITH n, score, [] AS turn_ids
// include: recall.knowledge_columns
