// mode: write
// params: ids
// knowledge: untouched
// scope: admin
// returns: count
// why: a backlog item is a queue entry, not knowledge: it is removed once applied.
UNWIND $ids AS id
MATCH (b:Backlog {id: id})
DELETE b
RETURN count(id) AS count
