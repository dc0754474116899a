// mode: read
// params: project, now
// returns: id, started_at
// why: "pending for N sessions" counts the sessions that started after something was said.
MATCH (s:Session)
WHERE s.expired_at > $now AND ($project IS NULL OR s.project = $project)
RETURN s.id AS id, coalesce(s.started_at, s.valid_from) AS started_at
