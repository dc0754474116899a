// mode: write
// params: rows
// scope: internal
// returns: id
// why: an approved `create_lesson` finding writes a lesson drafted from the finding's evidence.
UNWIND $rows AS row
MERGE (l:Lesson {id: row.id})
ON CREATE SET l += row
RETURN l.id AS id
