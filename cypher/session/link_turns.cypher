// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: count
// why: (Session)-[:HAS_TURN]->(Turn) for every row, then (prev)-[:NEXT]->(Turn) where the row
//      names its predecessor (`prev_id` null: first turn, no NEXT). Edge times come from the turn;
//      re-linking is idempotent and never reopens a closed edge (interval ends only shrink).
UNWIND $rows AS row
MATCH (t:Turn {id: row.id})
MATCH (s:Session {id: row.session_id})
MERGE (s)-[h:HAS_TURN]->(t)
ON CREATE SET h.valid_from = row.valid_from, h.valid_to = row.valid_to,
              h.recorded_at = row.recorded_at, h.expired_at = row.expired_at
ON MATCH SET h.valid_to = CASE WHEN h.valid_to > row.valid_to THEN row.valid_to ELSE h.valid_to END,
             h.expired_at = CASE WHEN h.expired_at > row.expired_at THEN row.expired_at
                              ELSE h.expired_at END
WITH t, row
MATCH (p:Turn {id: row.prev_id})
MERGE (p)-[x:NEXT]->(t)
ON CREATE SET x.valid_from = row.valid_from, x.valid_to = row.valid_to,
              x.recorded_at = row.recorded_at, x.expired_at = row.expired_at
ON MATCH SET x.valid_to = CASE WHEN x.valid_to > row.valid_to THEN row.valid_to ELSE x.valid_to END,
             x.expired_at = CASE WHEN x.expired_at > row.expired_at THEN row.expired_at
                              ELSE x.expired_at END
RETURN count(x) AS count
