// mode: read
// params: session_ids, file, now
// scope: admin
// returns: id, content_hash, ordinal, embedded
// why: the still-current turns these sessions got from this file, so a re-parse of an edited file
//      re-embeds only new or changed turns and closes (never deletes) the ones that vanished.
MATCH (t:Turn)
WHERE t.session_id IN $session_ids AND t.source_file = $file AND t.expired_at > $now
RETURN t.id AS id, t.content_hash AS content_hash, t.ordinal AS ordinal,
       t.embedding IS NOT NULL AS embedded
