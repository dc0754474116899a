// mode: read
// params: project, since, limit
// returns: id, query, at, item_ids
// why: the latest recorded context requests of a project (newest first).
MATCH (q:ContextQuery)
WHERE q.project = $project AND q.at >= $since
RETURN q.id AS id, q.query AS query, q.at AS at, q.item_ids AS item_ids
ORDER BY at DESC, id DESC
LIMIT $limit
