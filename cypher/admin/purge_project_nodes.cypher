// mode: autocommit
// params: project
// returns: deleted
// why: deletes every node of one project (its `project` property) with its relationships, and
//      leaves every other project untouched. Used by `remgraph eval scenarios` to remove what a
//      scenario wrote on Neo4j, whose Community edition has one database (on FalkorDB each
//      scenario gets its own graph, dropped afterwards). Neo4j deletes in batches (dialect file).
MATCH (n)
WHERE n.project = $project
DETACH DELETE n
RETURN count(*) AS deleted
