// fragment: yes
// params: as_of, known_at, limit
// why: the tail of one branch of recall.rules_in_force after it matches corrections `n` in
//      scope: those in force at $as_of as known at $known_at (recall.held_as_known),
//      confirmed and heaviest first. A candidate (stored, not served: graph.models.CANDIDATE)
//      is left out before the limit, so candidates never crowd served corrections out of it.
// include: recall.held_as_known
  AND n.status <> 'candidate'
WITH n
ORDER BY coalesce(n.confirmed, false) DESC, coalesce(n.confidence, 0) * coalesce(n.reinforcement, 1) DESC,
         n.id
LIMIT $limit
WITH n, null AS score, coalesce(n.source_turn_ids, [])[0..5] AS turn_ids
// include: recall.knowledge_columns
