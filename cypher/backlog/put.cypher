// mode: write
// params: rows
// knowledge: untouched
// scope: admin
// returns: count
// why: idempotent: a re-run after a crash writes the same item (deterministic id) again.
UNWIND $rows AS row
MERGE (b:Backlog {id: row.id})
SET b += row
RETURN count(b) AS count
