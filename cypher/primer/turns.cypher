// mode: read
// params: ids, now
// scope: internal
// returns: id, session_id, ordinal, role, speaker, text, at
// why: the turns of the sessions a daily primer narrates (only the days being rebuilt are read).
UNWIND $ids AS sid
MATCH (t:Turn {session_id: sid})
WHERE t.expired_at > $now AND t.role IN ['user', 'assistant']
RETURN t.id AS id, t.session_id AS session_id, t.ordinal AS ordinal, t.role AS role, t.speaker AS speaker,
       t.text AS text, t.valid_from AS at
ORDER BY session_id, ordinal
