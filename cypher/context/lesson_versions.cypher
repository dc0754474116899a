// mode: read
// params: ids, projects
// returns: lesson_id, props
// why: version history of several lessons in one round trip (DataLoader batch).
UNWIND $ids AS lid
MATCH (l:Lesson {id: lid})-[:HAS_VERSION]->(v:LessonVersion)
WHERE l.project IN $projects OR '*' IN $projects
RETURN l.id AS lesson_id, properties(v) AS props
ORDER BY lesson_id, v.version
