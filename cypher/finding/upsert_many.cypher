// mode: write
// params: rows
// returns: id, status
// why: finding ids are deterministic (job, kind, targets), so a later run refreshes an open finding
//      and never reopens one a reviewer already decided.
UNWIND $rows AS row
MERGE (f:Finding {id: row.id})
ON CREATE SET f += row
ON MATCH SET
  f.run_id = CASE WHEN f.status = 'open' THEN row.run_id ELSE f.run_id END,
  f.title = CASE WHEN f.status = 'open' THEN row.title ELSE f.title END,
  f.detail = CASE WHEN f.status = 'open' THEN row.detail ELSE f.detail END,
  f.proposed_action = CASE WHEN f.status = 'open' THEN row.proposed_action ELSE f.proposed_action END
RETURN f.id AS id, f.status AS status
