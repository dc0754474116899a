// mode: write
// params: ids, now
// scope: internal
// returns: id
// why: archiving closes an item in valid time (valid_to = now); it stays in the graph for as-of
//      reads, and the open end believed until now is kept for reads at an earlier knownAt.
UNWIND $ids AS id
OPTIONAL MATCH (l:Lesson {id: id})
OPTIONAL MATCH (c:Correction {id: id})
OPTIONAL MATCH (f:Fact {id: id})
OPTIONAL MATCH (t:Topic {id: id})
WITH coalesce(l, c, f, t) AS n
WHERE n IS NOT NULL AND n.valid_to > $now
WITH n, n.valid_to AS prev
SET n.valid_to_was = coalesce(n.valid_to_was, []) + [prev],
    n.valid_to_until = coalesce(n.valid_to_until, []) + [$now],
    n.valid_to = $now
RETURN n.id AS id
