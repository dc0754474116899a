// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: an approved `link` finding relates two knowledge items of any kind.
UNWIND $rows AS row
OPTIONAL MATCH (a1:Topic {id: row.source_id})
OPTIONAL MATCH (a2:Lesson {id: row.source_id})
OPTIONAL MATCH (a3:Correction {id: row.source_id})
OPTIONAL MATCH (a4:Fact {id: row.source_id})
OPTIONAL MATCH (b1:Topic {id: row.target_id})
OPTIONAL MATCH (b2:Lesson {id: row.target_id})
OPTIONAL MATCH (b3:Correction {id: row.target_id})
OPTIONAL MATCH (b4:Fact {id: row.target_id})
WITH row, coalesce(a1, a2, a3, a4) AS a, coalesce(b1, b2, b3, b4) AS b
WHERE a IS NOT NULL AND b IS NOT NULL
MERGE (a)-[r:RELATED_TO]->(b)
ON CREATE SET r.recorded_at = $now, r.weight = row.weight, r.origin = 'rem'
RETURN count(r) AS n
