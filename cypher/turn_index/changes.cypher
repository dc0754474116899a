// mode: read
// params: since, projects
// returns: kind, ids
// why: what turn and session writes in `projects` changed after the clock's `since`
//      (`turn_index.bump`), for a refresh of the in-process turn index; the ids are read back
//      through project-scoped queries, as a write may span projects.
MATCH (c:TurnChange)
WHERE c.seq > $since AND any(p IN c.touched WHERE p IN $projects)
RETURN c.kind AS kind, c.ids AS ids
