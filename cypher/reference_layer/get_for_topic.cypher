// mode: read
// params: project, topic_id, now
// returns: node
MATCH (r:ReferenceLayer {project: $project, topic_id: $topic_id})
WHERE r.valid_to > $now AND r.expired_at > $now
RETURN properties(r) AS node
