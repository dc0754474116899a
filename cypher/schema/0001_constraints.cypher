// mode: schema
// params:
// why: one uniqueness constraint per label on the application id (FalkorDB: exact-match index +
//      GRAPH.CONSTRAINT, translated by the adapter; Neo4j: native constraint, which also indexes).
CREATE CONSTRAINT schema_migration_id IF NOT EXISTS FOR (n:SchemaMigration) REQUIRE n.id IS UNIQUE
