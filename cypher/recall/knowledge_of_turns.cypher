// mode: read
// params: ids, projects, as_of, known_at
// why: graph expansion: lessons, corrections and facts derived from the matched turns, one row
//      per (item, turn). The WITH keeps FalkorDB traversing from the turns (otherwise it scans
//      every node). Found through a turn, not a search: `score` is null. The valid_to as known
//      at $known_at: see recall.best_in_scope.
MATCH (t:Turn)
WHERE t.id IN $ids
MATCH (t)<-[:DERIVED_FROM]-(n)
WITH t, n
WHERE (n:Lesson OR n:Correction OR n:Fact)
  AND (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                     WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) > $as_of
WITH n, null AS score, [t.id] AS turn_ids
// include: recall.knowledge_columns
