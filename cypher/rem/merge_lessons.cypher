// mode: write
// params: rows, now
// scope: internal
// returns: n
// why: one statement per batch of merges: both lessons' pre-merge states become LessonVersions,
//      the kept lesson takes the union, the duplicate is linked DUPLICATE_OF and closed (never
//      deleted). Version ids are deterministic, so a retried write changes nothing twice.
UNWIND $rows AS row
MATCH (k:Lesson {id: row.keep_id})
MATCH (d:Lesson {id: row.dup_id})
MERGE (kv:LessonVersion {id: row.keep_version.id})
ON CREATE SET kv += row.keep_version
MERGE (k)-[:HAS_VERSION]->(kv)
MERGE (dv:LessonVersion {id: row.dup_version.id})
ON CREATE SET dv += row.dup_version
MERGE (d)-[:HAS_VERSION]->(dv)
SET k += row.keep_props
MERGE (d)-[r:DUPLICATE_OF]->(k)
ON CREATE SET r.recorded_at = $now, r.weight = row.similarity
SET d.expired_at = CASE WHEN d.expired_at > $now THEN $now ELSE d.expired_at END
RETURN count(k) AS n
