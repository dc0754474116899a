// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: the kept correction takes the union of sessions and sources and the summed reinforcement;
//      the duplicate stays in the graph as history, linked DUPLICATE_OF and closed.
UNWIND $rows AS row
MATCH (k:Correction {id: row.keep_id})
MATCH (d:Correction {id: row.dup_id})
SET k += row.keep_props
MERGE (d)-[r:DUPLICATE_OF]->(k)
ON CREATE SET r.recorded_at = $now, r.weight = row.similarity
SET d.expired_at = CASE WHEN d.expired_at > $now THEN $now ELSE d.expired_at END
RETURN count(k) AS n
