// mode: read
// params: projects
// returns: project, nodes
// why: `remgraph eval knowledge` refuses to write into a project that already holds anything.
UNWIND $projects AS p
OPTIONAL MATCH (n)
WHERE n.project = p OR p IN coalesce(n.projects, [])
RETURN p AS project, count(n) AS nodes
