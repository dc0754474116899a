// mode: write
// params: ids
// knowledge: untouched
// returns: deleted
// why: REM job locks carry no project property (their id names the scope), so the caller passes
//      the lock ids of the project it purges.
UNWIND $ids AS id
MATCH (l:JobLock {id: id})
DETACH DELETE l
RETURN count(*) AS deleted
