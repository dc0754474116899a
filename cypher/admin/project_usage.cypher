// mode: read
// params:
// returns: project, nodes
// why: which projects hold data, and how much: every eval (`remgraph/eval_isolation.py`) refuses to
//      write into a project that already has data, and `eval scenarios` refuses a shared database
//      whose other projects would move its ranks through the index-wide term statistics and
//      candidate pools. A topic counts for every project in its `projects` list; API keys, job
//      locks and migrations belong to none.
MATCH (n)
WHERE NOT n:SchemaMigration AND NOT n:ApiKey AND NOT n:JobLock
UNWIND CASE WHEN n:Topic THEN coalesce(n.projects, []) ELSE [n.project] END AS project
WITH project
WHERE project IS NOT NULL
RETURN project AS project, count(*) AS nodes
ORDER BY nodes DESC, project
