// Browser guide: the facts of a project that were true at an event time, as the graph knew them at
// a record time, and the newer facts that superseded each one later. A superseded fact ends in
// valid time only (valid_to), so at known_at = now it still answers for times before it ended; its
// end as known at an earlier known_at is kept in valid_to_was/valid_to_until.
// :param project => 'my-project'
// :param as_of => 1700000000000        (epoch milliseconds, UTC; e.g. datetime('2026-01-01').epochMillis)
// :param known_at => 1900000000000
// params: project, as_of, known_at
MATCH (f:Fact)
WHERE f.project = $project
  AND f.valid_from <= $as_of
  AND f.recorded_at <= $known_at AND f.expired_at > $known_at
WITH f, coalesce(head([i IN range(0, size(coalesce(f.valid_to_until, [])) - 1)
                      WHERE f.valid_to_until[i] > $known_at | f.valid_to_was[i]]),
                 f.valid_to) AS vto
WHERE vto > $as_of
OPTIONAL MATCH (newer:Fact)-[s:SUPERSEDES]->(f)
WHERE s.recorded_at <= $known_at AND newer.expired_at > $known_at
RETURN f.subject AS subject, f.predicate AS predicate, f.object AS object,
       f.valid_from AS valid_from_ms, vto AS valid_to_ms,
       newer.object AS superseded_by, newer.valid_from AS superseded_at_ms
ORDER BY subject, predicate
