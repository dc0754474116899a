// mode: read
// params: project, now
// returns: node, last_refined_at
// why: duplicates and staleness read every live lesson once, with its embedding and the time of
//      its latest refinement (newest LessonVersion).
MATCH (n:Lesson)
WHERE n.valid_to > $now AND n.expired_at > $now AND ($project IS NULL OR n.project = $project)
OPTIONAL MATCH (n)-[:HAS_VERSION]->(v:LessonVersion)
RETURN properties(n) AS node, max(v.created_at) AS last_refined_at
