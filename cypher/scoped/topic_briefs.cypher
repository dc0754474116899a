// mode: read
// params: ids, projects, as_of, known_at
// returns: topic_id, props
// why: the briefs of several topics that held at `as_of` as known at `known_at`, within the
//      caller's projects (DataLoader batch); the caller keeps the newest version per topic. The
//      valid_to as known at $known_at is read as in recall.best_in_scope.
MATCH (b:TopicBrief)
WHERE b.topic_id IN $ids AND (b.project IN $projects OR '*' IN $projects)
  AND b.valid_from <= $as_of
  AND b.recorded_at <= $known_at AND b.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(b.valid_to_until, [])) - 1)
                     WHERE b.valid_to_until[i] > $known_at | b.valid_to_was[i]]),
                b.valid_to) > $as_of
RETURN b.topic_id AS topic_id, properties(b) AS props
ORDER BY topic_id, b.version
