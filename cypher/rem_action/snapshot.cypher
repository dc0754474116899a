// mode: read
// params: ids, now, current
// scope: admin
// returns: id, props
// why: the before-image of knowledge items a REM action is about to change (current ones only:
//      what `--auto` may act on, when $current), so `remgraph rem undo` can put them back.
UNWIND $ids AS id
OPTIONAL MATCH (l:Lesson {id: id})
OPTIONAL MATCH (c:Correction {id: id})
OPTIONAL MATCH (f:Fact {id: id})
OPTIONAL MATCH (t:Topic {id: id})
WITH id, coalesce(l, c, f, t) AS n
WHERE n IS NOT NULL AND (NOT $current OR (n.valid_to > $now AND n.expired_at > $now))
RETURN id AS id, n {.*, embedding: null} AS props
