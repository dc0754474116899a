// mode: read
// params: project, now
// returns: id, embedding
// why: similarity edges are computed in Python (blocked matrix products) from one fetch.
MATCH (n:Topic)
WHERE n.embedding IS NOT NULL AND n.valid_to > $now AND n.expired_at > $now
  AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, n.embedding AS embedding
UNION ALL
MATCH (n:Lesson)
WHERE n.embedding IS NOT NULL AND n.valid_to > $now AND n.expired_at > $now
  AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, n.embedding AS embedding
UNION ALL
MATCH (n:Correction)
WHERE n.embedding IS NOT NULL AND n.valid_to > $now AND n.expired_at > $now
  AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, n.embedding AS embedding
UNION ALL
MATCH (n:Fact)
WHERE n.embedding IS NOT NULL AND n.valid_to > $now AND n.expired_at > $now
  AND ($project IS NULL OR n.project = $project)
RETURN n.id AS id, n.embedding AS embedding
