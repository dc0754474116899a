// mode: read
// params: projects, now, day_ms
// returns: day, turns, sessions
// why: the HTML report's ingest volume: turns recorded per day (ingest time, not event time).
MATCH (t:Turn)
WHERE (t.project IN $projects OR '*' IN $projects) AND t.expired_at > $now
WITH t.recorded_at / $day_ms AS day, t
RETURN day AS day, count(t) AS turns, count(DISTINCT t.session_id) AS sessions
ORDER BY day
