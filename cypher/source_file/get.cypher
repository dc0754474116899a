// mode: read
// params: id
// scope: admin
// returns: node
// why: the ingest state of one transcript file (offset, prefix hash, parser cursor).
MATCH (f:SourceFile {id: $id})
RETURN f {.*} AS node
