// mode: write
// params: id, projects, now, used, helpful, harmful
// returns: id, usage_count, helpful_count, harmful_count, effectiveness
// why: feedback from agents; effectiveness = (helpful - harmful) / (helpful + harmful + 2), a
//      smoothed score in (-1, 1) that ranking multiplies into the item's weight.
MATCH (n:Correction {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now
SET n.usage_count = coalesce(n.usage_count, 0) + $used,
    n.helpful_count = coalesce(n.helpful_count, 0) + $helpful,
    n.harmful_count = coalesce(n.harmful_count, 0) + $harmful
SET n.effectiveness = toFloat(n.helpful_count - n.harmful_count) / (n.helpful_count + n.harmful_count + 2)
RETURN n.id AS id, n.usage_count AS usage_count, n.helpful_count AS helpful_count,
       n.harmful_count AS harmful_count, n.effectiveness AS effectiveness
