// mode: write
// params: rows, now
// scope: internal
// returns: n
UNWIND $rows AS row
MATCH (m:Turn {id: row.turn_id})
MATCH (t:Topic {id: row.topic_id})
MERGE (m)-[r:MENTIONS]->(t)
ON CREATE SET r.recorded_at = $now
RETURN count(r) AS n
