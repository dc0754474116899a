// mode: write
// params: rows
// scope: internal
// returns: id
// why: a new brief version, idempotent by id (project, topic, version), linked to its topic. The
//      edge carries the brief's interval, so it ends when the brief does.
UNWIND $rows AS row
MERGE (b:TopicBrief {id: row.id})
SET b += row
WITH b, row
MATCH (t:Topic {id: row.topic_id})
MERGE (b)-[s:SUMMARISES]->(t)
ON CREATE SET s.valid_from = row.valid_from, s.valid_to = row.valid_to,
              s.recorded_at = row.recorded_at, s.expired_at = row.expired_at
RETURN b.id AS id
