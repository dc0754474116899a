// mode: schema
// params:
// why: range indexes behind the reads (by project, session, time, natural keys).
CREATE INDEX project_valid_from IF NOT EXISTS FOR (n:Project) ON (n.valid_from)
;
CREATE INDEX session_project IF NOT EXISTS FOR (n:Session) ON (n.project)
;
CREATE INDEX session_valid_from IF NOT EXISTS FOR (n:Session) ON (n.valid_from)
;
CREATE INDEX session_source_key IF NOT EXISTS FOR (n:Session) ON (n.source_key)
;
CREATE INDEX session_content_hash IF NOT EXISTS FOR (n:Session) ON (n.content_hash)
;
CREATE INDEX turn_session_id IF NOT EXISTS FOR (n:Turn) ON (n.session_id)
;
CREATE INDEX turn_project IF NOT EXISTS FOR (n:Turn) ON (n.project)
;
CREATE INDEX turn_valid_from IF NOT EXISTS FOR (n:Turn) ON (n.valid_from)
;
CREATE INDEX turn_content_hash IF NOT EXISTS FOR (n:Turn) ON (n.content_hash)
;
CREATE INDEX topic_title IF NOT EXISTS FOR (n:Topic) ON (n.title)
;
CREATE INDEX topic_last_seen IF NOT EXISTS FOR (n:Topic) ON (n.last_seen)
;
CREATE INDEX lesson_project IF NOT EXISTS FOR (n:Lesson) ON (n.project)
;
CREATE INDEX lesson_category IF NOT EXISTS FOR (n:Lesson) ON (n.category)
;
CREATE INDEX lesson_version_lesson_id IF NOT EXISTS FOR (n:LessonVersion) ON (n.lesson_id)
;
CREATE INDEX correction_project IF NOT EXISTS FOR (n:Correction) ON (n.project)
;
CREATE INDEX correction_status IF NOT EXISTS FOR (n:Correction) ON (n.status)
;
CREATE INDEX fact_project IF NOT EXISTS FOR (n:Fact) ON (n.project)
;
CREATE INDEX fact_kind IF NOT EXISTS FOR (n:Fact) ON (n.kind)
;
CREATE INDEX fact_subject IF NOT EXISTS FOR (n:Fact) ON (n.subject)
;
CREATE INDEX community_project IF NOT EXISTS FOR (n:Community) ON (n.project)
;
CREATE INDEX community_run_id IF NOT EXISTS FOR (n:Community) ON (n.run_id)
;
CREATE INDEX community_run_project IF NOT EXISTS FOR (n:CommunityRun) ON (n.project)
;
CREATE INDEX primer_project IF NOT EXISTS FOR (n:Primer) ON (n.project)
;
CREATE INDEX primer_period_key IF NOT EXISTS FOR (n:Primer) ON (n.period_key)
;
CREATE INDEX reference_layer_project IF NOT EXISTS FOR (n:ReferenceLayer) ON (n.project)
;
CREATE INDEX reference_layer_topic_id IF NOT EXISTS FOR (n:ReferenceLayer) ON (n.topic_id)
;
CREATE INDEX job_run_project IF NOT EXISTS FOR (n:JobRun) ON (n.project)
;
CREATE INDEX job_run_job IF NOT EXISTS FOR (n:JobRun) ON (n.job)
;
CREATE INDEX job_run_run_id IF NOT EXISTS FOR (n:JobRun) ON (n.run_id)
;
CREATE INDEX finding_project IF NOT EXISTS FOR (n:Finding) ON (n.project)
;
CREATE INDEX finding_run_id IF NOT EXISTS FOR (n:Finding) ON (n.run_id)
;
CREATE INDEX finding_status IF NOT EXISTS FOR (n:Finding) ON (n.status)
;
CREATE INDEX rem_state_project IF NOT EXISTS FOR (n:RemState) ON (n.project)
;
CREATE INDEX rem_state_job IF NOT EXISTS FOR (n:RemState) ON (n.job)
;
CREATE INDEX api_key_key_hash IF NOT EXISTS FOR (n:ApiKey) ON (n.key_hash)
;
CREATE INDEX project_snapshot_project IF NOT EXISTS FOR (n:ProjectSnapshot) ON (n.project)
;
CREATE INDEX project_snapshot_taken_at IF NOT EXISTS FOR (n:ProjectSnapshot) ON (n.taken_at)
