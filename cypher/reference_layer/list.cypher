// mode: read
// params: project, now
// returns: node
MATCH (r:ReferenceLayer {project: $project})
WHERE r.valid_to > $now AND r.expired_at > $now
RETURN properties(r) AS node
ORDER BY r.topic_id
