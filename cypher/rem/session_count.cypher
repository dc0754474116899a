// mode: read
// params: project
// returns: sessions
// why: session-count schedules (linear, fibonacci, logarithmic) trigger on this number.
MATCH (s:Session)
WHERE $project IS NULL OR s.project = $project
RETURN count(s) AS sessions
