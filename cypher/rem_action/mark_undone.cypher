// mode: write
// params: ids, now
// knowledge: untouched
// scope: admin
// returns: id
UNWIND $ids AS id
MATCH (a:RemAction {id: id})
SET a.undone_at = $now
RETURN a.id AS id
