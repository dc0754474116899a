// mode: read
// params: project, since, limit
// returns: id, query, at, item_ids
// why: the latest recorded context requests of a project (newest first); rules served by
//      `rules` or the session-start hook (`source` other than `context`) are not requests.
MATCH (q:ContextQuery)
WHERE q.project = $project AND q.at >= $since AND coalesce(q.source, 'context') = 'context'
RETURN q.id AS id, q.query AS query, q.at AS at, q.item_ids AS item_ids
ORDER BY at DESC, id DESC
LIMIT $limit
