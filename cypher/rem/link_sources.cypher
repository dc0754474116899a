// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: after a merge the kept lesson or correction also points at the duplicate's source turns.
UNWIND $rows AS row
MATCH (t:Turn {id: row.turn_id})
OPTIONAL MATCH (l:Lesson {id: row.id})
OPTIONAL MATCH (c:Correction {id: row.id})
WITH t, coalesce(l, c) AS n
WHERE n IS NOT NULL
MERGE (n)-[r:DERIVED_FROM]->(t)
ON CREATE SET r.recorded_at = $now
RETURN count(r) AS n
