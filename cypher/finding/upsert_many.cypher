// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: id, status
// why: finding ids are deterministic (job, kind, targets), so a later run refreshes an open finding
//      and never reopens one a reviewer approved or rejected. A skipped finding comes back (open,
//      refreshed) when its evidence changed since it was skipped.
UNWIND $rows AS row
MERGE (f:Finding {id: row.id})
ON CREATE SET f += row
WITH f, row,
     f.status = 'open' OR (f.status = 'skipped' AND row.evidence <> ''
                           AND coalesce(f.evidence, '') <> row.evidence) AS fresh
SET f.status = CASE WHEN fresh THEN 'open' ELSE f.status END,
    f.run_id = CASE WHEN fresh THEN row.run_id ELSE f.run_id END,
    f.title = CASE WHEN fresh THEN row.title ELSE f.title END,
    f.detail = CASE WHEN fresh THEN row.detail ELSE f.detail END,
    f.evidence = CASE WHEN fresh THEN row.evidence ELSE f.evidence END,
    f.proposed_action = CASE WHEN fresh THEN row.proposed_action ELSE f.proposed_action END
RETURN f.id AS id, f.status AS status
