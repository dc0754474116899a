// mode: write
// params: projects, paths
// returns: deleted
// why: `remgraph eval knowledge` on a shared database (Neo4j Community has one) removes the
//      projects it created: every node carrying one of them, their REM job locks (`rem:<p>:<job>`)
//      and the ingest state of the files it read, with all their relationships. Global topics
//      are handled apart (admin.topic_state / delete_topics / restore_topics).
MATCH (n)
WHERE n.project IN $projects
   OR (n:JobLock AND any(p IN $projects WHERE n.id STARTS WITH ('rem:' + p + ':')))
   OR (n:SourceFile AND n.path IN $paths)
DETACH DELETE n
RETURN count(*) AS deleted
