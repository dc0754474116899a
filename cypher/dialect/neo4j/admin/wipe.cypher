// mode: autocommit
// params:
// why: tests and `remgraph db reset --yes` start from an empty graph; schema and indexes survive.
//      In batches: one transaction deleting a 100K-turn graph exceeds Neo4j's transaction memory
//      limit (`dbms.memory.transaction.total.max`, 70% of the heap by default).
MATCH (n)
WHERE NOT n:SchemaMigration
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
