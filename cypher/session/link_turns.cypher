// mode: write
// params: rows
// returns: count
// why: (Session)-[:HAS_TURN]->(Turn) for every row, then (prev)-[:NEXT]->(Turn) where the row
//      names its predecessor (`prev_id` null: first turn, no NEXT). Edge times come from the turn.
UNWIND $rows AS row
MATCH (t:Turn {id: row.id})
MATCH (s:Session {id: row.session_id})
MERGE (s)-[h:HAS_TURN]->(t)
ON CREATE SET h.recorded_at = row.recorded_at
SET h.valid_from = row.valid_from, h.valid_to = row.valid_to, h.expired_at = row.expired_at
WITH t, row
MATCH (p:Turn {id: row.prev_id})
MERGE (p)-[x:NEXT]->(t)
ON CREATE SET x.recorded_at = row.recorded_at
SET x.valid_from = row.valid_from, x.valid_to = row.valid_to, x.expired_at = row.expired_at
RETURN count(x) AS count
