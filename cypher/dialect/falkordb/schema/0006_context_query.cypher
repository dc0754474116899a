// mode: schema
// params:
// why: FalkorDB needs an exact-match index before a unique constraint on the same property.
CREATE INDEX FOR (n:ContextQuery) ON (n.id)
;
CREATE CONSTRAINT context_query_id IF NOT EXISTS FOR (n:ContextQuery) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:ContextQuery) ON (n.at)
