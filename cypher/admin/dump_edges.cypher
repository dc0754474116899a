// mode: read
// params:
// returns: source, type, target, props
// why: the relationships half of admin.dump_nodes.
MATCH (a)-[r]->(b)
RETURN a.id AS source, type(r) AS type, b.id AS target, properties(r) AS props
