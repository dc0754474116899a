// Browser guide: the same timeline as a table (role, speaker, time, first 160 characters).
// :param session_id => 'ses_...'
// params: session_id
// scope: admin
MATCH (s:Session {id: $session_id})-[:HAS_TURN]->(t:Turn)
RETURN t.ordinal AS ordinal, t.role AS role, t.speaker AS speaker,
       t.valid_from AS event_time_ms, substring(t.text, 0, 160) AS text,
       t.tool_name AS tool, t.tool_ok AS tool_ok
ORDER BY ordinal
