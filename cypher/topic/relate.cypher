// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: co-occurrence strength grows with the number of distinct sessions discussing both topics;
//      keeping the session list makes a re-run of the same session a no-op.
UNWIND $rows AS row
MATCH (a:Topic {id: row.source_id})
MATCH (b:Topic {id: row.target_id})
MERGE (a)-[r:RELATED_TO]->(b)
ON CREATE SET r.recorded_at = $now, r.sessions = []
WITH r, row
SET r.sessions = CASE WHEN row.session_id IN r.sessions THEN r.sessions
                      ELSE r.sessions + row.session_id END
SET r.weight = toFloat(size(r.sessions)) / (size(r.sessions) + 2.0)
RETURN count(r) AS n
