// mode: autocommit
// params: project
// returns: deleted
// why: deletes every node of one project (its `project` property) with its relationships, and
//      leaves every other project untouched. Used by every eval (`remgraph/eval_isolation.py`) to
//      remove what it wrote on Neo4j, whose Community edition has one database (on FalkorDB an
//      eval gets scratch graphs, dropped afterwards). Neo4j deletes in batches (dialect file).
MATCH (n)
WHERE n.project = $project
DETACH DELETE n
RETURN count(*) AS deleted
