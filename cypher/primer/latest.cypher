// mode: read
// params: project, period, now
// returns: node
// why: the context pack's newest monthly or weekly primer; history size does not matter.
MATCH (p:Primer {project: $project, period: $period})
WHERE p.expired_at > $now
RETURN properties(p) AS node
ORDER BY p.period_key DESC
LIMIT 1
