// mode: autocommit
// params: run_id
// knowledge: untouched
// scope: internal
// returns: deleted
// why: runs older than `keep_runs` are removed with their communities (memberships go with them);
//      the current run is never passed here.
MATCH (r:CommunityRun {id: $run_id})
WHERE r.current = false
OPTIONAL MATCH (c:Community {run_id: $run_id})
DETACH DELETE c, r
RETURN count(c) AS deleted
