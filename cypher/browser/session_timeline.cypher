// Browser guide: a session's timeline, turn by turn, with the NEXT chain drawn.
// :param session_id => 'ses_...'      (find one: MATCH (s:Session) RETURN s.id, s.title LIMIT 25)
// params: session_id
// scope: admin
MATCH (p:Project)-[:HAS_SESSION]->(s:Session {id: $session_id})-[:HAS_TURN]->(t:Turn)
OPTIONAL MATCH (t)-[n:NEXT]->(next:Turn)
RETURN p, s, t, n, next
ORDER BY t.ordinal
LIMIT 500
