// mode: write
// params: project
// returns: updated
// why: takes a purged project out of the `projects` list of the topics it shares with others.
//      What it added to them (keywords, co-occurrence sessions) stays: topics do not record whose
//      it was.
MATCH (t:Topic)
WHERE $project IN t.projects
SET t.projects = [p IN t.projects WHERE p <> $project]
RETURN count(t) AS updated
