// mode: write
// params: id, projects, now, used, helpful, harmful
// returns: id, usage_count, helpful_count, harmful_count, effectiveness
// why: feedback from agents; effectiveness = (helpful - harmful) / (helpful + harmful + 2), a
//      smoothed score in (-1, 1) that ranking multiplies into the item's weight.
MATCH (n:Correction {id: $id})
WHERE (n.project IN $projects OR '*' IN $projects) AND n.expired_at > $now
WITH n, coalesce(n.usage_count, 0) + $used AS u, coalesce(n.helpful_count, 0) + $helpful AS h,
     coalesce(n.harmful_count, 0) + $harmful AS x
SET n.usage_count = u, n.helpful_count = h, n.harmful_count = x,
    n.effectiveness = toFloat(h - x) / (h + x + 2)
RETURN n.id AS id, u AS usage_count, h AS helpful_count, x AS harmful_count,
       toFloat(h - x) / (h + x + 2) AS effectiveness
