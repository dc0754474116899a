// mode: schema
// params:
// why: the same constraint and range indexes (FalkorDB needs an exact-match index before a unique
//      constraint, and its CREATE INDEX takes neither a name nor IF NOT EXISTS).
CREATE INDEX FOR (n:TopicBrief) ON (n.id)
;
CREATE CONSTRAINT topic_brief_id IF NOT EXISTS FOR (n:TopicBrief) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:TopicBrief) ON (n.project)
;
CREATE INDEX FOR (n:TopicBrief) ON (n.topic_id)
