// mode: write
// params: rows
// returns: id
UNWIND $rows AS row
MERGE (j:JobRun {id: row.id})
SET j += row
RETURN j.id AS id
