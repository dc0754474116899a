// mode: read
// params: ids
// scope: internal
// returns: node
UNWIND $ids AS id
MATCH (f:Finding {id: id})
RETURN properties(f) AS node
