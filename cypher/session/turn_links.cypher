// mode: read
// params: session_id, as_of, known_at
// scope: internal
// returns: id, ordinal, next_id
// why: walks the session's HAS_TURN edges (live at the given times) in ordinal order with each
//      turn's NEXT successor; used to verify and render a transcript's chain.
MATCH (s:Session {id: $session_id})-[h:HAS_TURN]->(n:Turn)
WHERE h.valid_from <= $as_of AND h.valid_to > $as_of
  AND h.recorded_at <= $known_at AND h.expired_at > $known_at
OPTIONAL MATCH (n)-[x:NEXT]->(nx:Turn)
WHERE x.valid_from <= $as_of AND x.valid_to > $as_of
  AND x.recorded_at <= $known_at AND x.expired_at > $known_at
RETURN n.id AS id, n.ordinal AS ordinal, nx.id AS next_id
ORDER BY ordinal
