// mode: write
// params: rows
// scope: internal
// returns: id
UNWIND $rows AS row
MERGE (p:Primer {id: row.id})
SET p += row
RETURN p.id AS id
