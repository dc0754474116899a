// mode: read
// params: project, now
// returns: node, contradictions
// why: duplicates, staleness (decay) and graduation read every live correction once, with the
//      live corrections it contradicts or is contradicted by.
MATCH (n:Correction)
WHERE n.valid_to > $now AND n.expired_at > $now AND ($project IS NULL OR n.project = $project)
RETURN properties(n) AS node,
       [(n)-[:CONTRADICTS]-(o:Correction) WHERE o.valid_to > $now AND o.expired_at > $now
        | {id: o.id, last_seen: o.last_seen}] AS contradictions
