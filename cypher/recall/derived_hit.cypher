// fragment: yes
// params: projects, as_of, known_at, k
// why: the tail of one search over lessons, corrections or facts (after the engine's index call
//      binds `n` and `score`): the best readable items with the turns they were derived from.
// include: recall.best_in_scope
OPTIONAL MATCH (n)-[:DERIVED_FROM]->(t:Turn)
WITH n, score, collect(t.id) AS turn_ids
// include: recall.knowledge_columns
