// mode: read
// params: project, now
// returns: props
MATCH (l:Lesson)
WHERE l.project = $project AND l.expired_at > $now AND l.valid_to > $now
RETURN l {.*, embedding: null} AS props
ORDER BY l.id
