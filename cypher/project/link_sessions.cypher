// mode: write
// params: rows
// knowledge: untouched
// scope: admin
// returns: count
// why: (Project)-[:HAS_SESSION]->(Session); the project node is created on first sight so ingest
//      needs no separate project step. Edge times come from the session; re-linking never reopens
//      a closed edge (interval ends only shrink). A project starts with its earliest session, so
//      its valid_from and recorded_at only ever move earlier: the result does not depend on which
//      row creates the node (Neo4j: the first row of a batch, FalkorDB: the last).
UNWIND $rows AS row
MATCH (s:Session {id: row.target_id})
MERGE (p:Project {id: row.source_id})
ON CREATE SET p.project = row.source_id, p.name = row.source_id, p.description = '',
              p.valid_from = row.valid_from, p.valid_to = row.valid_to,
              p.recorded_at = row.recorded_at, p.expired_at = row.expired_at
ON MATCH SET p.valid_from = CASE WHEN row.valid_from < p.valid_from THEN row.valid_from
                            ELSE p.valid_from END,
             p.recorded_at = CASE WHEN row.recorded_at < p.recorded_at THEN row.recorded_at
                             ELSE p.recorded_at END
MERGE (p)-[r:HAS_SESSION]->(s)
ON CREATE SET r.valid_from = row.valid_from, r.valid_to = row.valid_to,
              r.recorded_at = row.recorded_at, r.expired_at = row.expired_at
ON MATCH SET r.valid_to = CASE WHEN r.valid_to > row.valid_to THEN row.valid_to ELSE r.valid_to END,
             r.expired_at = CASE WHEN r.expired_at > row.expired_at THEN row.expired_at
                              ELSE r.expired_at END
RETURN count(r) AS count
