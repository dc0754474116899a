// mode: read
// params: project, period, now
// returns: node
// why: current primer records of one period kind (closed/archived ones included: they are history).
MATCH (p:Primer {project: $project, period: $period})
WHERE p.expired_at > $now
RETURN properties(p) AS node
ORDER BY p.period_key
