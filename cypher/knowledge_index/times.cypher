// mode: read
// params: projects
// why: the times and embeddings of a project's knowledge items (knowledge_index.items), so the
//      in-process knowledge index (`recall.knowledge_index`) filters by as-of and known-at exactly
//      as recall.best_in_scope does, and scores by embedding the kinds the vector searches cover
//      (lessons, corrections, facts, topics).
MATCH (n:Lesson)
WHERE n.project IN $projects
// include: knowledge_index.time_columns
UNION ALL
MATCH (n:Correction)
WHERE n.project IN $projects
// include: knowledge_index.time_columns
UNION ALL
MATCH (n:Fact)
WHERE n.project IN $projects
// include: knowledge_index.time_columns
UNION ALL
MATCH (n:Topic)
WHERE n.project IN $projects
// include: knowledge_index.time_columns
UNION ALL
MATCH (n:ReferenceLayer)
WHERE n.project IN $projects
// include: knowledge_index.time_columns
UNION ALL
MATCH (n:Primer)
WHERE n.project IN $projects
// include: knowledge_index.time_columns
