// mode: read
// params: projects, now, day_ms
// returns: topic_id, title, project, day, mentions, sessions
// why: the HTML report's topic weights over time: mentions of each topic per day (turn event
//      time) and the sessions they came from, counted in the readable projects only (topics are
//      shared between projects; their stored counts are not per project).
MATCH (t:Turn)-[:MENTIONS]->(p:Topic)
WHERE (t.project IN $projects OR '*' IN $projects)
  AND t.expired_at > $now AND p.expired_at > $now
WITH p, t.project AS project, t.valid_from / $day_ms AS day, t
RETURN p.id AS topic_id, p.title AS title, project AS project, day AS day,
       count(t) AS mentions, collect(DISTINCT t.session_id) AS sessions
ORDER BY topic_id, day
