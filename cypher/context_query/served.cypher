// mode: read
// params: project, ids, now
// returns: id, last_served_at, served_count
// why: when each knowledge item among $ids was last served, and how often: every `context`
//      answer, `rules` answer and session-start hook that returned it left a GOT edge from its
//      ContextQuery (written by the API's background recorder, off the request path), so
//      serving is read here, by the REM staleness job and `rem run --auto`, and never written
//      on the item (that would move the knowledge clock on every request). Items of another
//      project than $project (null: any) and servings after $now are left out; an item never
//      served has no row.
UNWIND $ids AS id
OPTIONAL MATCH (l:Lesson {id: id})
OPTIONAL MATCH (c:Correction {id: id})
OPTIONAL MATCH (f:Fact {id: id})
OPTIONAL MATCH (t:Topic {id: id})
WITH coalesce(l, c, f, t) AS n
WHERE n IS NOT NULL
  AND ($project IS NULL OR n.project = $project OR $project IN coalesce(n.projects, []))
MATCH (n)<-[g:GOT]-(:ContextQuery)
WHERE g.valid_from <= $now
RETURN n.id AS id, max(g.valid_from) AS last_served_at, count(g) AS served_count
ORDER BY id
