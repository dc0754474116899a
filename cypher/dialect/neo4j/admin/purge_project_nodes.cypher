// mode: autocommit
// params: project
// returns: deleted
// why: the portable query in batches of 1,000 nodes, each its own transaction, so a large project
//      never needs one transaction holding all of it.
MATCH (n)
WHERE n.project = $project
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(*) AS deleted
