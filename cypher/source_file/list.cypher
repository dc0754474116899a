// mode: read
// params: prefix
// scope: admin
// returns: node
// why: every ingested file under a path prefix (status and `--watch` bookkeeping).
MATCH (f:SourceFile)
WHERE f.path STARTS WITH $prefix
RETURN f {.*} AS node
ORDER BY node.path
