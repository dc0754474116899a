// mode: write
// params: lock_id, owner
// knowledge: untouched
// returns: released
// why: a lock that is not per project (the embedding backlog's) is removed when released, so it
//      leaves no node behind in a graph that is otherwise compared or purged project by project.
MATCH (l:JobLock {id: $lock_id})
WHERE l.owner = $owner
DELETE l
RETURN count(*) AS released
