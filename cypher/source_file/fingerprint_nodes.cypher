// mode: read
// params: projects
// returns: label, id, props
// why: everything ingest writes for some projects, to prove a re-run (or a crash and a re-run)
//      leaves exactly what one clean run leaves.
MATCH (n)
WHERE (n:Project OR n:Session OR n:Turn) AND n.project IN $projects
RETURN labels(n)[0] AS label, n.id AS id, properties(n) AS props
ORDER BY id
