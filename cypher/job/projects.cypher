// mode: read
// params:
// scope: admin
// returns: project
// why: every project that owns sessions or knowledge. A REM run over all projects runs each job
//      once per project: derived items (topics, layers, primers, communities, findings) are
//      built from one project's material and never mix projects.
MATCH (n:Session)
RETURN DISTINCT n.project AS project
UNION
MATCH (n:Lesson)
RETURN DISTINCT n.project AS project
UNION
MATCH (n:Correction)
RETURN DISTINCT n.project AS project
UNION
MATCH (n:Fact)
RETURN DISTINCT n.project AS project
UNION
MATCH (n:Topic)
WHERE n.project IS NOT NULL
RETURN DISTINCT n.project AS project
