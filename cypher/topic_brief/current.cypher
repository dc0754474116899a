// mode: read
// params: project, now
// returns: node
// why: the open brief of each topic of a project (the REM job compares its material hash).
MATCH (b:TopicBrief {project: $project})
WHERE b.valid_to > $now AND b.expired_at > $now
RETURN properties(b) AS node
ORDER BY b.topic_id, b.version
