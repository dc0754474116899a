// Browser guide: a correction's graduation history: what it superseded or duplicated, what it
// contradicts, and the turns (with their sessions) it was seen in.
// :param correction_id => 'cor_...'   (find: MATCH (c:Correction) RETURN c.id, c.rule_text, c.status, c.reinforcement LIMIT 25)
// params: correction_id
// scope: admin
MATCH (c:Correction {id: $correction_id})
OPTIONAL MATCH (c)-[r:SUPERSEDES|DUPLICATE_OF|CONTRADICTS|RELATED_TO]-(other:Correction)
OPTIONAL MATCH (c)-[d:DERIVED_FROM]->(t:Turn)<-[h:HAS_TURN]-(s:Session)
RETURN c, r, other, d, t, h, s
