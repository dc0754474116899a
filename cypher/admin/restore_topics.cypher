// mode: write
// params: rows
// scope: admin
// returns: restored
// why: puts kept topic properties back; rows hold a null for every property added since, which
//      removes it.
UNWIND $rows AS row
MATCH (t:Topic {id: row.id})
SET t += row.props
RETURN count(t) AS restored
