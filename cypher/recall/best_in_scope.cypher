// fragment: yes
// params: projects, as_of, known_at, k
// why: the `k` best-scored items `n` of one search that the caller's projects may read and that
//      hold at `as_of` as known at `known_at` (items with a `project`; topics: `topic_hit`).
WITH n, score
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of AND n.valid_to > $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, score ORDER BY score DESC, n.id LIMIT $k
