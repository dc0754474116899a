// mode: schema
// params:
// why: FalkorDB needs an exact-match index before a unique constraint on the same property.
CREATE INDEX FOR (n:JobLock) ON (n.id)
;
CREATE CONSTRAINT job_lock_id IF NOT EXISTS FOR (n:JobLock) REQUIRE n.id IS UNIQUE
