// mode: read
// params: project, as_of, known_at, with_history
// returns: source_id, type, target_id, props
// why: the relationships between one project's knowledge items, communities and sessions
//      (both ends in $project); the repository keeps those whose two ends were exported. Some
//      relationships carry no times (`IN_COMMUNITY`) or only `recorded_at` (`RELATED_TO`): a
//      missing time does not hide a relationship.
MATCH (a)-[r:RELATED_TO|SUPERSEDES|CONTRADICTS|DUPLICATE_OF|IN_COMMUNITY]->(b)
WHERE a.project = $project AND b.project = $project
  AND ($with_history
       OR (coalesce(r.valid_from, 0) <= $as_of AND coalesce(r.valid_to, $as_of + 1) > $as_of
           AND coalesce(r.recorded_at, 0) <= $known_at
           AND coalesce(r.expired_at, $known_at + 1) > $known_at))
RETURN a.id AS source_id, type(r) AS type, b.id AS target_id, properties(r) AS props
