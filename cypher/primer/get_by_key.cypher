// mode: read
// params: project, period, period_key, now
// returns: node
MATCH (p:Primer {project: $project, period: $period, period_key: $period_key})
WHERE p.expired_at > $now
RETURN properties(p) AS node
