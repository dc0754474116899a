// mode: read
// params: ids, project, now, limit
// returns: topic_id, id, text, role, speaker, session_id, at
// why: the newest user and assistant turns mentioning each topic (MENTIONS keeps every one, the
//      node's capped list does not), so a refreshed layer takes in what was said since.
UNWIND $ids AS tid
MATCH (t:Turn)-[:MENTIONS]->(:Topic {id: tid})
WHERE t.project = $project AND t.expired_at > $now AND t.role IN ['user', 'assistant']
WITH tid, t
ORDER BY t.valid_from DESC, t.id
WITH tid, collect(t)[0..$limit] AS ts
UNWIND ts AS t
RETURN tid AS topic_id, t.id AS id, t.text AS text, t.role AS role, t.speaker AS speaker,
       t.session_id AS session_id, t.valid_from AS at
