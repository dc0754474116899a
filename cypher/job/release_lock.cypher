// mode: write
// params: lock_id, owner
// knowledge: untouched
// returns: released
// why: only the owner releases; an expired lock somebody else took stays theirs.
MATCH (l:JobLock {id: $lock_id})
WHERE l.owner = $owner
SET l.owner = '', l.expires_at = 0
RETURN count(l) AS released
