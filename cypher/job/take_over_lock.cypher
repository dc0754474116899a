// mode: write
// params: lock_id, stale, owner, now, expires_at
// knowledge: untouched
// returns: acquired
// why: a lock whose holder is a process of this host that is gone (killed) is taken over at
//      once instead of after its time-to-live; only while the dead process still holds it, so
//      two takers cannot both win.
MATCH (l:JobLock {id: $lock_id})
WHERE l.owner = $stale
SET l.owner = $owner, l.expires_at = $expires_at, l.touched_at = $now
RETURN count(l) AS acquired
