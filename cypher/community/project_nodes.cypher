// mode: read
// params: project, now
// returns: id, kind, title, text, keywords, weight, turn_ids, session_ids, subkind
// why: the communities job's node projection: every live topic, lesson, correction and fact in one
//      round trip (no per-node queries), with the provenance properties they carry; topic
//      briefs read it too (`subkind`: a fact's kind, a correction's status, a lesson's category).
MATCH (n:Topic)
WHERE n.valid_to > $now AND n.expired_at > $now AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, 'topic' AS kind, n.title AS title, n.title AS text, n.keywords AS keywords,
       n.weight AS weight, n.message_ids AS turn_ids, n.sessions AS session_ids,
       n.phase AS subkind
UNION ALL
MATCH (n:Lesson)
WHERE n.valid_to > $now AND n.expired_at > $now AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, 'lesson' AS kind, n.title AS title, n.summary AS text, n.keywords AS keywords,
       n.weight AS weight, n.source_turn_ids AS turn_ids, [] AS session_ids,
       n.category AS subkind
UNION ALL
MATCH (n:Correction)
WHERE n.valid_to > $now AND n.expired_at > $now AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, 'correction' AS kind, n.rule_text AS title, n.corrected_behaviour AS text,
       [] AS keywords, n.confidence AS weight, n.source_turn_ids AS turn_ids,
       n.sessions AS session_ids, n.status AS subkind
UNION ALL
MATCH (n:Fact)
WHERE n.valid_to > $now AND n.expired_at > $now AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, 'fact' AS kind, n.statement AS title, n.object AS text, [] AS keywords,
       n.confidence AS weight, n.source_turn_ids AS turn_ids, [] AS session_ids,
       n.kind AS subkind
