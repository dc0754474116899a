// mode: read
// params: project, as_of, known_at, with_history, with_sessions
// why: one project's knowledge graph for `remgraph export`: its topics, lessons, corrections,
//      facts, the communities of its current Leiden run (every stored run with $with_history) and,
//      with $with_sessions, its sessions. Strictly `n.project = $project`: legacy global topics (no
//      `project`) and every other project's nodes stay out.
MATCH (n:Topic)
WHERE n.project = $project
WITH n, 'topic' AS kind
// include: export.in_window
UNION ALL
MATCH (n:Lesson)
WHERE n.project = $project
WITH n, 'lesson' AS kind
// include: export.in_window
UNION ALL
MATCH (n:Correction)
WHERE n.project = $project
WITH n, 'correction' AS kind
// include: export.in_window
UNION ALL
MATCH (n:Fact)
WHERE n.project = $project
WITH n, 'fact' AS kind
// include: export.in_window
UNION ALL
MATCH (n:Community)-[:IN_RUN]->(r:CommunityRun)
WHERE n.project = $project AND r.project = $project AND ($with_history OR r.current = true)
WITH n, 'community' AS kind
// include: export.in_window
UNION ALL
MATCH (n:Session)
WHERE $with_sessions AND n.project = $project
WITH n, 'session' AS kind
// include: export.in_window
