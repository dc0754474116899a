// mode: write
// params: rows
// knowledge: untouched
// scope: admin
// returns: id
UNWIND $rows AS row
MERGE (j:JobRun {id: row.id})
SET j += row
RETURN j.id AS id
