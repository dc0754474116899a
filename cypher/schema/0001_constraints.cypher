// mode: schema
// params:
// why: one uniqueness constraint per label on the application id (Neo4j's constraint also
//      indexes the property). Keep in step with dialect/falkordb/schema/0001_constraints.
CREATE CONSTRAINT schema_migration_id IF NOT EXISTS FOR (n:SchemaMigration) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT project_id IF NOT EXISTS FOR (n:Project) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT session_id IF NOT EXISTS FOR (n:Session) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (n:Turn) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT topic_id IF NOT EXISTS FOR (n:Topic) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT lesson_id IF NOT EXISTS FOR (n:Lesson) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT lesson_version_id IF NOT EXISTS FOR (n:LessonVersion) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT correction_id IF NOT EXISTS FOR (n:Correction) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT community_id IF NOT EXISTS FOR (n:Community) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT community_run_id IF NOT EXISTS FOR (n:CommunityRun) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT primer_id IF NOT EXISTS FOR (n:Primer) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT reference_layer_id IF NOT EXISTS FOR (n:ReferenceLayer) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT job_run_id IF NOT EXISTS FOR (n:JobRun) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT finding_id IF NOT EXISTS FOR (n:Finding) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT rem_state_id IF NOT EXISTS FOR (n:RemState) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT project_snapshot_id IF NOT EXISTS FOR (n:ProjectSnapshot) REQUIRE n.id IS UNIQUE
