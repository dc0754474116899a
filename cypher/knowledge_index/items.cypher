// mode: read
// params: projects, known_at
// why: every knowledge item of a project, in force or not, as the in-process knowledge index
//      holds it (`recall.knowledge_index`): the columns of every knowledge search
//      (recall.knowledge_columns; the caller passes the end of time as $known_at, so `valid_to`
//      is the current end) with the turns each points back to, as the searches' branch tails
//      collect them (recall.derived_hit, recall.topic_hit, recall.layer_hit). Their times and
//      embeddings: knowledge_index.times.
MATCH (n:Lesson)
WHERE n.project IN $projects
OPTIONAL MATCH (n)-[:DERIVED_FROM]->(t:Turn)
WITH n, null AS score, collect(t.id) AS turn_ids
// include: recall.knowledge_columns
UNION ALL
MATCH (n:Correction)
WHERE n.project IN $projects
OPTIONAL MATCH (n)-[:DERIVED_FROM]->(t:Turn)
WITH n, null AS score, collect(t.id) AS turn_ids
// include: recall.knowledge_columns
UNION ALL
MATCH (n:Fact)
WHERE n.project IN $projects
OPTIONAL MATCH (n)-[:DERIVED_FROM]->(t:Turn)
WITH n, null AS score, collect(t.id) AS turn_ids
// include: recall.knowledge_columns
UNION ALL
MATCH (n:Topic)
WHERE n.project IN $projects
OPTIONAL MATCH (t:Turn)-[:MENTIONS]->(n)
WHERE t.project IN $projects
WITH n, null AS score, collect(t.id) AS tids
WITH n, score, tids[0..20] AS turn_ids
// include: recall.knowledge_columns
UNION ALL
MATCH (n:ReferenceLayer)
WHERE n.project IN $projects
WITH n, null AS score, [] AS turn_ids
// include: recall.knowledge_columns
UNION ALL
MATCH (n:Primer)
WHERE n.project IN $projects
WITH n, null AS score, [] AS turn_ids
// include: recall.knowledge_columns
