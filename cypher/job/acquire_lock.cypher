// mode: write
// params: lock_id, owner, now, expires_at
// knowledge: untouched
// returns: acquired, owner, expires_at
// why: single-flight per job and scope. One statement takes the lock when it is free, expired or
//      already ours; the first SET takes the node's write lock (Neo4j) before the state is read.
MERGE (l:JobLock {id: $lock_id})
ON CREATE SET l.owner = '', l.expires_at = 0
SET l.touched_at = $now
WITH l, (l.owner = '' OR l.owner = $owner OR l.expires_at <= $now) AS free
SET l.owner = CASE WHEN free THEN $owner ELSE l.owner END,
    l.expires_at = CASE WHEN free THEN $expires_at ELSE l.expires_at END
RETURN free AS acquired, l.owner AS owner, l.expires_at AS expires_at
