// mode: write
// params: rows
// returns: count
// why: (Project)-[:HAS_SESSION]->(Session); the project node is created on first sight so ingest
//      needs no separate project step. Edge times come from the session.
UNWIND $rows AS row
MATCH (s:Session {id: row.target_id})
MERGE (p:Project {id: row.source_id})
ON CREATE SET p.project = row.source_id, p.name = row.source_id, p.description = '',
              p.valid_from = row.valid_from, p.valid_to = row.valid_to,
              p.recorded_at = row.recorded_at, p.expired_at = row.expired_at
MERGE (p)-[r:HAS_SESSION]->(s)
ON CREATE SET r.recorded_at = row.recorded_at
SET r.valid_from = row.valid_from, r.valid_to = row.valid_to, r.expired_at = row.expired_at
RETURN count(r) AS count
