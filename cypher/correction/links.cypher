// mode: read
// params: id
// scope: internal
// returns: type, source_id, target_id
// why: every typed link (DUPLICATE_OF, RELATED_TO, SUPERSEDES, CONTRADICTS) touching a correction.
MATCH (a:Correction)-[r]->(b:Correction)
WHERE a.id = $id OR b.id = $id
RETURN type(r) AS type, a.id AS source_id, b.id AS target_id
ORDER BY type, source_id, target_id
