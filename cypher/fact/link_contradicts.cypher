// mode: write
// params: rows, now
// scope: internal
// returns: n
UNWIND $rows AS row
MATCH (a:Fact {id: row.source_id})
MATCH (b:Fact {id: row.target_id})
MERGE (a)-[r:CONTRADICTS]->(b)
ON CREATE SET r.recorded_at = $now
RETURN count(r) AS n
