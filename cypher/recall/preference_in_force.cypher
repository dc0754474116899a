// fragment: yes
// params: as_of, known_at, limit
// why: the tail of one branch of recall.rules_in_force after it matches preference facts `n`
//      in scope: those in force at $as_of as known at $known_at (recall.held_as_known),
//      most confident first.
// include: recall.held_as_known
WITH n
ORDER BY coalesce(n.confidence, 0) DESC, n.id
LIMIT $limit
WITH n, null AS score, coalesce(n.source_turn_ids, [])[0..5] AS turn_ids
// include: recall.knowledge_columns
