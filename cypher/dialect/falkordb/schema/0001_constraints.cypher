// mode: schema
// params:
// why: FalkorDB needs an exact-match index before a unique constraint on the same property.
CREATE INDEX FOR (n:SchemaMigration) ON (n.id)
;
CREATE CONSTRAINT schema_migration_id IF NOT EXISTS FOR (n:SchemaMigration) REQUIRE n.id IS UNIQUE
