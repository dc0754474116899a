// mode: read
// params:
// returns: project, nodes
// why: which projects hold data, and how much: `remgraph eval scenarios` refuses to run a scenario
//      in a project that already has data, or on a shared database whose other projects it would
//      read through the global topics and the index-wide term statistics. A topic counts for
//      every project in its `projects` list; API keys, job locks and migrations belong to none.
MATCH (n)
WHERE NOT n:SchemaMigration AND NOT n:ApiKey AND NOT n:JobLock
UNWIND CASE WHEN n:Topic THEN coalesce(n.projects, []) ELSE [n.project] END AS project
WITH project
WHERE project IS NOT NULL
RETURN project AS project, count(*) AS nodes
ORDER BY nodes DESC, project
