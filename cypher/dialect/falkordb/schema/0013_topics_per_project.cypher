// mode: schema
// params:
// why: topics belong to one project (issue 15). Topics from before were global: their keywords,
//      titles and counts mixed every project's turns, so no key may read them. They end in record
//      time (never deleted) and are marked `legacy_global`; reads select topics by `project`, which
//      these lack. `remgraph extract` rebuilds each project's topics from its own turns.
//      (FalkorDB: the same, its CREATE INDEX takes neither a name nor IF NOT EXISTS.)
MATCH (t:Topic)
WHERE t.project IS NULL AND t.expired_at > timestamp()
SET t.expired_at = timestamp(), t.legacy_global = true
;
CREATE INDEX FOR (n:Topic) ON (n.project)
