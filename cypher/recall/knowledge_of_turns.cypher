// mode: read
// rows: collected
// params: ids, projects, as_of, known_at
// why: graph expansion: lessons, corrections and facts derived from the matched turns, one row
//      per (item, turn), those that ended by $as_of included (their `valid_to` says so): the
//      caller serves the live ones and marks the turns of the ended ones superseded, from one
//      traversal. The WITH keeps FalkorDB traversing from the turns (otherwise it scans every
//      node). Found through a turn, not a search: `score` is null. The valid_to as known at
//      $known_at: see recall.best_in_scope.
MATCH (t:Turn)
WHERE t.id IN $ids
MATCH (t)<-[:DERIVED_FROM]-(n)
WITH t, n
WHERE (n:Lesson OR n:Correction OR n:Fact)
  AND (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, null AS score, [t.id] AS turn_ids
// include: recall.knowledge_columns
