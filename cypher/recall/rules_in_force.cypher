// mode: read
// rows: collected
// params: projects, as_of, known_at, limit
// why: rules first (issue 14): every `context` answer considers the project's corrections in
//      force as of the read (every stage: `recall.retrieval` opens with the relevant ones, and
//      with standing rules and preferences whatever the query), and the standing preferences
//      the user stated as facts (a diet, an allergy, the name to use: `kind = 'preference'`),
//      whatever the searches matched. The valid_to as known at $known_at: see
//      recall.best_in_scope. Found by status, not by a search: `score` is null. Heaviest first;
//      `recall.retrieval` keeps those the query needs.
MATCH (n:Correction)
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                     WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) > $as_of
WITH n
ORDER BY coalesce(n.confirmed, false) DESC, coalesce(n.confidence, 0) * coalesce(n.reinforcement, 1) DESC,
         n.id
LIMIT $limit
WITH n, null AS score, coalesce(n.source_turn_ids, [])[0..5] AS turn_ids
// include: recall.knowledge_columns
UNION ALL
MATCH (n:Fact)
WHERE (n.project IN $projects OR '*' IN $projects)
  AND n.kind = 'preference'
  AND n.valid_from <= $as_of
  AND n.recorded_at <= $known_at AND n.expired_at > $known_at
  AND coalesce(head([i IN range(0, size(coalesce(n.valid_to_until, [])) - 1)
                     WHERE n.valid_to_until[i] > $known_at | n.valid_to_was[i]]),
                n.valid_to) > $as_of
WITH n
ORDER BY coalesce(n.confidence, 0) DESC, n.id
LIMIT $limit
WITH n, null AS score, coalesce(n.source_turn_ids, [])[0..5] AS turn_ids
// include: recall.knowledge_columns
