// mode: read
// params: projects, skip, limit
// returns: props
// why: projects the caller may read, in id order (cursor = offset).
MATCH (p:Project)
WHERE p.id IN $projects OR '*' IN $projects
RETURN properties(p) AS props
ORDER BY p.id
SKIP $skip
LIMIT $limit
