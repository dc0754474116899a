// mode: write
// params: rows
// scope: admin
// returns: restored
// why: puts kept co-occurrence edge properties back (nulls remove properties added since).
UNWIND $rows AS row
MATCH (a:Topic {id: row.source})-[r:RELATED_TO]->(b:Topic {id: row.target})
SET r += row.props
RETURN count(r) AS restored
