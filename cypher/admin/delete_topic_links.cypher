// mode: write
// params: rows
// scope: admin
// returns: deleted
// why: co-occurrence edges an evaluation added between topics that existed before it.
UNWIND $rows AS row
MATCH (a:Topic {id: row.source})-[r:RELATED_TO]->(b:Topic {id: row.target})
DELETE r
RETURN count(*) AS deleted
