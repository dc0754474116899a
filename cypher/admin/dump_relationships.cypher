// mode: read
// params:
// returns: source, type, target, props
// why: every relationship with its end nodes' ids and its properties, for the same fingerprint
//      as `admin.dump_nodes`.
MATCH (a)-[r]->(b)
RETURN a.id AS source, type(r) AS type, b.id AS target, properties(r) AS props
