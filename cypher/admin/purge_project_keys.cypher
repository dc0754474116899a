// mode: write
// params: project
// knowledge: untouched
// returns: deleted
// why: API keys scoped to exactly this one project go with it; keys that cover other projects too
//      (or `*`) stay as they are.
MATCH (k:ApiKey)
WHERE size(k.projects) = 1 AND k.projects[0] = $project
DETACH DELETE k
RETURN count(*) AS deleted
