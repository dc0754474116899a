// mode: schema
// params:
// why: topic briefs (versioned summaries with key takeaways, one open per topic) are merged by
//      id and read by project and by topic.
CREATE CONSTRAINT topic_brief_id IF NOT EXISTS FOR (n:TopicBrief) REQUIRE n.id IS UNIQUE
;
CREATE INDEX topic_brief_project IF NOT EXISTS FOR (n:TopicBrief) ON (n.project)
;
CREATE INDEX topic_brief_topic_id IF NOT EXISTS FOR (n:TopicBrief) ON (n.topic_id)
