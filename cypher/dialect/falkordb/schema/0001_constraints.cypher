// mode: schema
// params:
// why: FalkorDB needs an exact-match index on a property before a unique constraint on it; the
//      adapter turns each CREATE CONSTRAINT into GRAPH.CONSTRAINT CREATE ... UNIQUE.
CREATE INDEX FOR (n:SchemaMigration) ON (n.id)
;
CREATE CONSTRAINT schema_migration_id IF NOT EXISTS FOR (n:SchemaMigration) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Project) ON (n.id)
;
CREATE CONSTRAINT project_id IF NOT EXISTS FOR (n:Project) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Session) ON (n.id)
;
CREATE CONSTRAINT session_id IF NOT EXISTS FOR (n:Session) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Turn) ON (n.id)
;
CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (n:Turn) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Topic) ON (n.id)
;
CREATE CONSTRAINT topic_id IF NOT EXISTS FOR (n:Topic) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Lesson) ON (n.id)
;
CREATE CONSTRAINT lesson_id IF NOT EXISTS FOR (n:Lesson) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:LessonVersion) ON (n.id)
;
CREATE CONSTRAINT lesson_version_id IF NOT EXISTS FOR (n:LessonVersion) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Correction) ON (n.id)
;
CREATE CONSTRAINT correction_id IF NOT EXISTS FOR (n:Correction) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Fact) ON (n.id)
;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Community) ON (n.id)
;
CREATE CONSTRAINT community_id IF NOT EXISTS FOR (n:Community) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:CommunityRun) ON (n.id)
;
CREATE CONSTRAINT community_run_id IF NOT EXISTS FOR (n:CommunityRun) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Primer) ON (n.id)
;
CREATE CONSTRAINT primer_id IF NOT EXISTS FOR (n:Primer) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:ReferenceLayer) ON (n.id)
;
CREATE CONSTRAINT reference_layer_id IF NOT EXISTS FOR (n:ReferenceLayer) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:JobRun) ON (n.id)
;
CREATE CONSTRAINT job_run_id IF NOT EXISTS FOR (n:JobRun) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:Finding) ON (n.id)
;
CREATE CONSTRAINT finding_id IF NOT EXISTS FOR (n:Finding) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:RemState) ON (n.id)
;
CREATE CONSTRAINT rem_state_id IF NOT EXISTS FOR (n:RemState) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:ApiKey) ON (n.id)
;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:ProjectSnapshot) ON (n.id)
;
CREATE CONSTRAINT project_snapshot_id IF NOT EXISTS FOR (n:ProjectSnapshot) REQUIRE n.id IS UNIQUE
