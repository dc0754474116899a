// fragment: yes
// params: as_of, known_at
// why: keeps the items `n` that hold at $as_of as recorded at $known_at, their end read as known
//      then (see recall.best_in_scope): the filter of both branches of recall.rules_in_force.
WITH n
WHERE n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                     WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) > $as_of
