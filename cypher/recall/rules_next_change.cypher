// mode: read
// rows: collected
// params: projects, now
// why: until when recall.rules_in_force read at $now (as of and known at $now) keeps its answer,
//      the knowledge clock aside: the earliest instant after $now at which a correction or a
//      preference fact in scope starts or stops holding (one row per branch; the caller takes the
//      least). `recall.knowledge_cache` keeps the rules it read that long. The branches match
//      as recall.rules_in_force does, every such item whether in force now or not.
MATCH (n:Correction)
WHERE n.project IN $projects AND NOT '*' IN $projects
// include: recall.next_change
UNION ALL
MATCH (n:Correction)
WHERE '*' IN $projects
// include: recall.next_change
UNION ALL
MATCH (n:Fact)
WHERE n.project IN $projects AND NOT '*' IN $projects AND n.kind = 'preference'
// include: recall.next_change
UNION ALL
MATCH (n:Fact)
WHERE '*' IN $projects AND n.kind = 'preference'
// include: recall.next_change
