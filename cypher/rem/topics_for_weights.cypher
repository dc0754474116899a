// mode: read
// params: project, now
// returns: id, title, keywords, message_count, message_ids, sessions, projects, last_seen, weight, phase
// why: topic weights, extraction and reference layers read every live topic once (no embedding).
MATCH (t:Topic)
WHERE t.valid_to > $now AND t.expired_at > $now AND ($project IS NULL OR t.project = $project)
RETURN t.id AS id, t.title AS title, t.keywords AS keywords, t.message_count AS message_count,
       t.message_ids AS message_ids, t.sessions AS sessions, t.projects AS projects,
       t.last_seen AS last_seen, t.weight AS weight, t.phase AS phase
