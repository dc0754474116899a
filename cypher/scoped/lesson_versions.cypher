// mode: read
// params: ids, projects
// returns: lesson_id, props
// why: version history of several lessons in one round trip (DataLoader batch).
MATCH (l:Lesson)
WHERE l.id IN $ids AND (l.project IN $projects OR '*' IN $projects)
MATCH (l)-[:HAS_VERSION]->(v:LessonVersion)
RETURN l.id AS lesson_id, properties(v) AS props
ORDER BY lesson_id, v.version
