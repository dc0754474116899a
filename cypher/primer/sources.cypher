// mode: read
// params: project, since, until, now
// returns: kind, id, title, text, at, sub
// why: everything a rollup summarises for a time window, in one round trip: sessions by start time,
//      lessons, corrections and facts by event time (valid_from). Observations are left out: they
//      restate the sessions' own sentences, which the primer quotes already, and one dated
//      "last year" would open a primer for a day when nothing was said.
MATCH (s:Session)
WHERE ($project IS NULL OR s.project = $project) AND s.expired_at > $now
  AND coalesce(s.started_at, s.valid_from) >= $since AND coalesce(s.started_at, s.valid_from) < $until
RETURN 'session' AS kind, s.id AS id, s.title AS title,
       coalesce(s.summary, s.outcome, s.intent, '') AS text,
       coalesce(s.started_at, s.valid_from) AS at, s.source AS sub
UNION ALL
MATCH (l:Lesson)
WHERE ($project IS NULL OR l.project = $project) AND l.expired_at > $now AND l.valid_to > $now
  AND l.valid_from >= $since AND l.valid_from < $until
RETURN 'lesson' AS kind, l.id AS id, l.title AS title, l.summary AS text, l.valid_from AS at,
       l.category AS sub
UNION ALL
MATCH (c:Correction)
WHERE ($project IS NULL OR c.project = $project) AND c.expired_at > $now AND c.valid_to > $now
  AND c.valid_from >= $since AND c.valid_from < $until
RETURN 'correction' AS kind, c.id AS id, c.rule_text AS title, c.corrected_behaviour AS text,
       c.valid_from AS at, c.status AS sub
UNION ALL
MATCH (f:Fact)
WHERE ($project IS NULL OR f.project = $project) AND f.expired_at > $now AND f.valid_to > $now
  AND f.valid_from >= $since AND f.valid_from < $until AND coalesce(f.kind, '') <> 'observation'
RETURN 'fact' AS kind, f.id AS id, f.statement AS title, f.object AS text, f.valid_from AS at,
       f.kind AS sub
