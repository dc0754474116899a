// mode: read
// rows: collected
// params: projects, as_of, known_at, limit
// why: rules first (issue 14): every `context` answer considers the project's corrections in
//      force as of the read (every stage: `recall.retrieval` opens with the relevant ones, and
//      with standing rules and preferences whatever the query), and the standing preferences
//      the user stated as facts (a diet, an allergy, the name to use: `kind = 'preference'`),
//      whatever the searches matched. The valid_to as known at $known_at: see
//      recall.best_in_scope. Found by status, not by a search: `score` is null. Heaviest first;
//      `recall.retrieval` keeps those the query needs. Each label is matched twice, for the
//      caller's projects and for every project (`*`), not once with an OR: the OR kept the
//      engine from the project index, and every correction of the graph was read per call.
MATCH (n:Correction)
WHERE n.project IN $projects AND NOT '*' IN $projects
// include: recall.correction_in_force
UNION ALL
MATCH (n:Correction)
WHERE '*' IN $projects
// include: recall.correction_in_force
UNION ALL
MATCH (n:Fact)
WHERE n.project IN $projects AND NOT '*' IN $projects AND n.kind = 'preference'
// include: recall.preference_in_force
UNION ALL
MATCH (n:Fact)
WHERE '*' IN $projects AND n.kind = 'preference'
// include: recall.preference_in_force
