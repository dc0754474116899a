// mode: read
// params:
// returns: id, checksum, applied_at
MATCH (m:SchemaMigration)
RETURN m.id AS id, m.checksum AS checksum, m.applied_at AS applied_at
ORDER BY id
