// mode: schema
// params:
// why: the REM runner's single-flight lock (`job.acquire_lock`) MERGEs a `JobLock` by id; a
//      uniqueness constraint makes two concurrent MERGEs on Neo4j meet on one node.
CREATE CONSTRAINT job_lock_id IF NOT EXISTS FOR (n:JobLock) REQUIRE n.id IS UNIQUE
