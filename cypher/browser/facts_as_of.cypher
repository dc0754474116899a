// Browser guide: the facts of a project that were true at an event time, as the graph knew them at
// a record time, and the newer facts that superseded each one later.
// :param project => 'my-project'
// :param as_of => 1700000000000        (epoch milliseconds, UTC; e.g. datetime('2026-01-01').epochMillis)
// :param known_at => 1900000000000
// params: project, as_of, known_at
MATCH (f:Fact)
WHERE f.project = $project
  AND f.valid_from <= $as_of AND f.valid_to > $as_of
  AND f.recorded_at <= $known_at AND f.expired_at > $known_at
OPTIONAL MATCH (newer:Fact)-[:SUPERSEDES]->(f)
RETURN f.subject AS subject, f.predicate AS predicate, f.object AS object,
       f.valid_from AS valid_from_ms, f.valid_to AS valid_to_ms,
       newer.object AS superseded_by, newer.valid_from AS superseded_at_ms
ORDER BY subject, predicate
