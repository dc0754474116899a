// mode: write
// params: rows, now
// scope: internal
// returns: n
UNWIND $rows AS row
MATCH (a:Correction {id: row.source_id})
MATCH (b:Correction {id: row.target_id})
MERGE (a)-[r:CONTRADICTS]->(b)
ON CREATE SET r.recorded_at = $now
SET r.weight = row.weight
RETURN count(r) AS n
