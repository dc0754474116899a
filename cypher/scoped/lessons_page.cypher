// mode: read
// params: projects, project, as_of, known_at, skip, limit
// returns: props
// why: lessons readable by the caller (optionally one project), as of a time.
//      The valid_to as known at $known_at: the first end recorded in valid_to_was whose
//      valid_to_until is later than $known_at, else the current valid_to. A lesson refined (or
//      merged) after $known_at is shown as it was then: the oldest LessonVersion snapshotted
//      later than $known_at holds the text that was current at $known_at.
MATCH (n:Lesson)
WHERE (n.project IN $projects OR '*' IN $projects)
  AND ($project IS NULL OR n.project = $project)
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
WITH n, coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                      WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                 n.valid_to) AS vto
WHERE vto > $as_of
OPTIONAL MATCH (n)-[:HAS_VERSION]->(v:LessonVersion)
WHERE v.created_at > $known_at
WITH n, vto, collect(v) AS later
WITH n, vto, reduce(b = null, x IN later |
                    CASE WHEN b IS NULL OR x.version < b.version THEN x ELSE b END) AS was
RETURN CASE WHEN was IS NULL THEN n {.*, embedding: null, valid_to: vto}
            ELSE n {.*, embedding: null, valid_to: vto, title: was.title, content: was.content,
                    summary: was.summary, version: was.version} END AS props
ORDER BY n.valid_from DESC, n.id
SKIP $skip
LIMIT $limit
