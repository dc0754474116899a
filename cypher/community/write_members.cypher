// mode: write
// params: rows
// scope: internal
// returns: n
// why: members can be any knowledge label; four indexed lookups beat one label-less scan.
UNWIND $rows AS row
MATCH (c:Community {id: row.community_id})
OPTIONAL MATCH (t:Topic {id: row.member_id})
OPTIONAL MATCH (l:Lesson {id: row.member_id})
OPTIONAL MATCH (k:Correction {id: row.member_id})
OPTIONAL MATCH (f:Fact {id: row.member_id})
WITH c, coalesce(t, l, k, f) AS n
WHERE n IS NOT NULL
MERGE (n)-[m:IN_COMMUNITY]->(c)
RETURN count(m) AS n
