// mode: schema
// params:
// why: every `context` request is recorded as a ContextQuery (what was asked, what came back), for
//      the Browser guide `context_for_query` and the REM staleness check on recent queries.
CREATE CONSTRAINT context_query_id IF NOT EXISTS FOR (n:ContextQuery) REQUIRE n.id IS UNIQUE
;
CREATE INDEX context_query_project_at IF NOT EXISTS FOR (n:ContextQuery) ON (n.project, n.at)
