// mode: read
// params:
// returns: name, state
// dialect-only: yes
// why: Neo4j populates new indexes asynchronously; migrate waits until all are ONLINE.
SHOW INDEXES YIELD name, state
RETURN name AS name, state AS state
