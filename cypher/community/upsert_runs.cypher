// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: id
UNWIND $rows AS row
MERGE (r:CommunityRun {id: row.id})
SET r += row
RETURN r.id AS id
