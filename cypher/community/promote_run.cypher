// mode: write
// params: project, run_id, now
// knowledge: untouched
// returns: runs, promoted
// why: one statement flips `current` for every run of the project, so readers switch atomically;
//      nothing changes when the new run does not exist.
MATCH (new:CommunityRun {id: $run_id, project: $project})
MATCH (r:CommunityRun {project: $project})
WITH r, r.id = new.id AS cur
SET r.current = cur,
    r.status = CASE WHEN cur THEN 'succeeded' ELSE r.status END,
    r.finished_at = CASE WHEN cur THEN $now ELSE r.finished_at END
RETURN count(r) AS runs, sum(CASE WHEN cur THEN 1 ELSE 0 END) AS promoted
