// mode: write
// params: rows
// scope: internal
// returns: n
// why: a refinement first snapshots the lesson's previous state; versions are immutable.
UNWIND $rows AS row
MATCH (l:Lesson {id: row.lesson_id})
MERGE (v:LessonVersion {id: row.id})
ON CREATE SET v += row
MERGE (l)-[r:HAS_VERSION]->(v)
RETURN count(v) AS n
