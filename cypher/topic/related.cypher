// mode: read
// params: id
// scope: internal
// returns: id, weight
MATCH (a:Topic {id: $id})-[r:RELATED_TO]-(b:Topic)
RETURN b.id AS id, r.weight AS weight
ORDER BY weight DESC, id
