// fragment: yes
// params: as_of, known_at, limit
// why: the tail of one branch of recall.rules_in_force after it matches preference facts `n`
//      in scope: those in force at $as_of as known at $known_at (see recall.best_in_scope),
//      most confident first.
WITH n
WHERE n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                     WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) > $as_of
WITH n
ORDER BY coalesce(n.confidence, 0) DESC, n.id
LIMIT $limit
WITH n, null AS score, coalesce(n.source_turn_ids, [])[0..5] AS turn_ids
// include: recall.knowledge_columns
