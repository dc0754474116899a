// mode: read
// params: ids
// returns: node
UNWIND $ids AS id
MATCH (f:Finding {id: id})
RETURN properties(f) AS node
