// mode: write
// params: rows
// returns: id
UNWIND $rows AS row
MERGE (r:CommunityRun {id: row.id})
SET r += row
RETURN r.id AS id
