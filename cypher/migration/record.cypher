// mode: write
// params: id, checksum, applied_at
// knowledge: untouched
// returns: id
MERGE (m:SchemaMigration {id: $id})
ON CREATE SET m.applied_at = $applied_at
SET m.checksum = $checksum
RETURN m.id AS id
