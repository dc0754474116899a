// mode: read
// params: lesson_id
// scope: internal
// returns: props
MATCH (l:Lesson {id: $lesson_id})-[:HAS_VERSION]->(v:LessonVersion)
RETURN properties(v) AS props
ORDER BY v.version
