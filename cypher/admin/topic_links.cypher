// mode: read
// params:
// scope: admin
// returns: source, target, props
// why: co-occurrence edges between topics, kept and put back around an evaluation (see
//      admin.topic_state).
MATCH (a:Topic)-[r:RELATED_TO]->(b:Topic)
RETURN a.id AS source, b.id AS target, properties(r) AS props
ORDER BY source, target
