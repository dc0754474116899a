// mode: read
// params: project, now
// returns: labels, id, props
// why: `remgraph eval knowledge` enumerates every node of one project whatever its label, so kinds
//      of knowledge added later are scored without a code change; turns (the raw material),
//      records closed before `now` and embeddings are left out. Topics are global and list their
//      projects.
MATCH (n)
WHERE (n.project = $project OR $project IN coalesce(n.projects, []))
  AND NOT n:Turn
  AND coalesce(n.expired_at, $now + 1) > $now
RETURN labels(n) AS labels, n.id AS id, n {.*, embedding: null} AS props
ORDER BY id
