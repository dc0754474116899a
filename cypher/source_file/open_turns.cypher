// mode: read
// params: session_ids, file, now
// returns: id
// why: turns of these sessions that came from this file and are still current, so an edited
//      file's vanished turns can be closed (never deleted).
MATCH (t:Turn)
WHERE t.session_id IN $session_ids AND t.source_file = $file AND t.expired_at > $now
RETURN t.id AS id
