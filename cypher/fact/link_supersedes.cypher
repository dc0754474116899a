// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: a fact learned late about an earlier time is stored already ended; the current fact
//      supersedes it from row.valid_to without closing anything.
UNWIND $rows AS row
MATCH (old:Fact {id: row.old_id})
MATCH (new:Fact {id: row.new_id})
MERGE (new)-[s:SUPERSEDES]->(old)
ON CREATE SET s.recorded_at = $now, s.valid_from = row.valid_to
RETURN count(s) AS n
