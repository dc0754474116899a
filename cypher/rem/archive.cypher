// mode: write
// params: ids, now
// returns: id
// why: archiving closes an item (valid_to = now); it stays in the graph for as-of queries.
UNWIND $ids AS id
OPTIONAL MATCH (l:Lesson {id: id})
OPTIONAL MATCH (c:Correction {id: id})
OPTIONAL MATCH (f:Fact {id: id})
OPTIONAL MATCH (t:Topic {id: id})
WITH coalesce(l, c, f, t) AS n
WHERE n IS NOT NULL AND n.valid_to > $now
SET n.valid_to = $now
RETURN n.id AS id
