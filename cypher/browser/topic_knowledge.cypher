// Browser guide: a topic, the turns that mention it, and the lessons and corrections derived from
// those turns (provenance: DERIVED_FROM points at the evidence).
// :param topic_id => 'top_...'        (find one: MATCH (t:Topic) RETURN t.id, t.title, t.weight ORDER BY t.weight DESC LIMIT 25)
// params: topic_id
// scope: admin
MATCH (tp:Topic {id: $topic_id})<-[m:MENTIONS]-(t:Turn)
OPTIONAL MATCH (k)-[d:DERIVED_FROM]->(t)
WHERE k:Lesson OR k:Correction
RETURN tp, m, t, k, d
LIMIT 300
