// fragment: yes
// params: projects, as_of, known_at, k
// why: the `k` best-scored items `n` of one search that the caller's projects may read and that
//      hold at `as_of` as known at `known_at` (items with a `project`; topics: `topic_hit`). The
//      valid_to as known at $known_at is the first end in valid_to_was whose valid_to_until is
//      later than $known_at, else the current valid_to (see fact.supersede).
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                     WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) > $as_of
WITH n, score ORDER BY score DESC, n.id LIMIT $k
