// mode: read
// params:
// returns: name, state
// dialect-only: yes
// why: FalkorDB builds indexes in the background; migrate waits until all are OPERATIONAL.
CALL db.indexes() YIELD label, status
RETURN label AS name, status AS state
