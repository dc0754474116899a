// mode: schema
// params:
// why: the same range indexes; FalkorDB's CREATE INDEX takes neither a name nor IF NOT EXISTS
//      (re-creating one is an "already indexed" error the adapter ignores).
CREATE INDEX FOR (n:Project) ON (n.valid_from)
;
CREATE INDEX FOR (n:Session) ON (n.project)
;
CREATE INDEX FOR (n:Session) ON (n.valid_from)
;
CREATE INDEX FOR (n:Session) ON (n.source_key)
;
CREATE INDEX FOR (n:Session) ON (n.content_hash)
;
CREATE INDEX FOR (n:Turn) ON (n.session_id)
;
CREATE INDEX FOR (n:Turn) ON (n.project)
;
CREATE INDEX FOR (n:Turn) ON (n.valid_from)
;
CREATE INDEX FOR (n:Turn) ON (n.content_hash)
;
CREATE INDEX FOR (n:Topic) ON (n.title)
;
CREATE INDEX FOR (n:Topic) ON (n.last_seen)
;
CREATE INDEX FOR (n:Lesson) ON (n.project)
;
CREATE INDEX FOR (n:Lesson) ON (n.category)
;
CREATE INDEX FOR (n:LessonVersion) ON (n.lesson_id)
;
CREATE INDEX FOR (n:Correction) ON (n.project)
;
CREATE INDEX FOR (n:Correction) ON (n.status)
;
CREATE INDEX FOR (n:Fact) ON (n.project)
;
CREATE INDEX FOR (n:Fact) ON (n.kind)
;
CREATE INDEX FOR (n:Fact) ON (n.subject)
;
CREATE INDEX FOR (n:Community) ON (n.project)
;
CREATE INDEX FOR (n:Community) ON (n.run_id)
;
CREATE INDEX FOR (n:CommunityRun) ON (n.project)
;
CREATE INDEX FOR (n:Primer) ON (n.project)
;
CREATE INDEX FOR (n:Primer) ON (n.period_key)
;
CREATE INDEX FOR (n:ReferenceLayer) ON (n.project)
;
CREATE INDEX FOR (n:ReferenceLayer) ON (n.topic_id)
;
CREATE INDEX FOR (n:JobRun) ON (n.project)
;
CREATE INDEX FOR (n:JobRun) ON (n.job)
;
CREATE INDEX FOR (n:JobRun) ON (n.run_id)
;
CREATE INDEX FOR (n:Finding) ON (n.project)
;
CREATE INDEX FOR (n:Finding) ON (n.run_id)
;
CREATE INDEX FOR (n:Finding) ON (n.status)
;
CREATE INDEX FOR (n:RemState) ON (n.project)
;
CREATE INDEX FOR (n:RemState) ON (n.job)
;
CREATE INDEX FOR (n:ApiKey) ON (n.key_hash)
;
CREATE INDEX FOR (n:ProjectSnapshot) ON (n.project)
;
CREATE INDEX FOR (n:ProjectSnapshot) ON (n.taken_at)
