// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: provenance: every derived node points at each turn it came from.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
MATCH (t:Turn {id: row.turn_id})
MERGE (f)-[r:DERIVED_FROM]->(t)
ON CREATE SET r.recorded_at = $now
RETURN count(r) AS n
