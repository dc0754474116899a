// mode: write
// params: id, projects, now
// returns: props
// why: the correction was extracted WRONG (the user never meant it): it ends in record time
//      (expired_at = now), valid interval untouched, as `scoped.retract_fact` does for a fact.
MATCH (n:Correction {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now
SET n.expired_at = $now
RETURN n {.*, embedding: null} AS props
