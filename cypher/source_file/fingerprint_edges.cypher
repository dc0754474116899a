// mode: read
// params: projects
// returns: source, type, target, props
// why: the relationships ingest writes (HAS_SESSION, HAS_TURN, NEXT) for some projects.
MATCH (a)-[r]->(b)
WHERE (a:Project OR a:Session OR a:Turn) AND a.project IN $projects
RETURN a.id AS source, type(r) AS type, b.id AS target, properties(r) AS props
ORDER BY source, type, target
