// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: co-occurrence strength recomputed from the sessions two topics share; rows keep the stored
//      direction of an existing edge, new edges go from the smaller id to the larger.
UNWIND $rows AS row
MATCH (a:Topic {id: row.source_id})
MATCH (b:Topic {id: row.target_id})
MERGE (a)-[r:RELATED_TO]->(b)
ON CREATE SET r.recorded_at = $now
SET r.weight = row.weight, r.shared_sessions = row.shared
RETURN count(r) AS n
