// mode: read
// params:
// scope: internal
// returns: project, turns
// why: the projects holding turns, most turns first: `serve` loads their turn indexes in the
//      background at start (`TurnIndexes.warm`), so no request waits for a first load.
MATCH (t:Turn)
RETURN t.project AS project, count(t) AS turns
ORDER BY turns DESC, project
