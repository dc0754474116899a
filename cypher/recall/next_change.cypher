// fragment: yes
// params: now
// returns: next
// why: the tail of one branch of recall.rules_next_change after it matches items `n` in scope:
//      the earliest instant after $now at which one of them starts or stops holding, or its end
//      as known then changes (every time recall.held_as_known and recall.knowledge_columns
//      compare with the as-of and known-at times). Null: none after $now.
UNWIND [n.valid_from, n.recorded_at, n.expired_at, n.valid_to]
       + coalesce(n.valid_to_was, []) + coalesce(n.valid_to_until, []) AS at
WITH at
WHERE at > $now
RETURN min(at) AS next
