// mode: write
// params: file, session_ids, keep, now
// knowledge: untouched
// scope: admin
// returns: count
// why: after an edited file is re-parsed, NEXT edges between its turns that are no longer
//      consecutive (`keep` lists the current `from>to` pairs) and HAS_TURN edges of turns that
//      were closed are closed too, so the chain never forks; nothing is deleted.
MATCH (s:Session)-[h:HAS_TURN]->(a:Turn)
WHERE s.id IN $session_ids AND a.source_file = $file
OPTIONAL MATCH (a)-[r:NEXT]->(b:Turn)
WHERE r.expired_at > $now AND NOT (a.id + '>' + b.id) IN $keep
WITH h, a, collect(r) AS stale
FOREACH (x IN stale | SET x.valid_to = CASE WHEN x.valid_to > $now THEN $now ELSE x.valid_to END,
                         x.expired_at = $now)
FOREACH (x IN CASE WHEN a.expired_at <= $now AND h.expired_at > $now THEN [h] ELSE [] END |
         SET x.valid_to = CASE WHEN x.valid_to > $now THEN $now ELSE x.valid_to END,
             x.expired_at = $now)
RETURN count(a) AS count
