// fragment: yes
// params: as_of, known_at, with_history
// returns: kind, props
// why: the export's one time rule for a node `n` of kind `kind`: current knowledge holds at
//      $as_of as known at $known_at (the valid_to as known then is the first end in valid_to_was
//      whose valid_to_until is later than $known_at, else valid_to: see fact.supersede); with
//      $with_history every stored record, closed and expired ones too, with its stored times.
WITH n, kind, coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                             WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                       n.valid_to) AS vto
WHERE $with_history
   OR (n.valid_from <= $as_of AND vto > $as_of
       AND n.recorded_at <= $known_at AND n.expired_at > $known_at)
RETURN kind,
       CASE WHEN $with_history THEN n {.*, embedding: null}
            ELSE n {.*, embedding: null, valid_to: vto} END AS props
