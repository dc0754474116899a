// mode: read
// params: ids, projects, as_of, known_at
// returns: id
// why: the matched turns that said something since superseded: a fact or correction derived
//      from the turn whose valid time ended at or before $as_of (as known at $known_at; see
//      recall.best_in_scope). Ranking lowers them (the `superseded` signal) unless the turn
//      also has a live derived item. The WITH keeps FalkorDB traversing from the turns.
MATCH (t:Turn)
WHERE t.id IN $ids
MATCH (t)<-[:DERIVED_FROM]-(n)
WITH t, n
WHERE (n:Correction OR n:Fact)
  AND (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                     WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) <= $as_of
RETURN DISTINCT t.id AS id
