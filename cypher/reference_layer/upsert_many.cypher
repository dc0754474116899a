// mode: write
// params: rows
// scope: internal
// returns: id
UNWIND $rows AS row
MERGE (r:ReferenceLayer {id: row.id})
SET r += row
WITH r, row
MATCH (t:Topic {id: row.topic_id})
MERGE (r)-[:DESCRIBES]->(t)
RETURN r.id AS id
