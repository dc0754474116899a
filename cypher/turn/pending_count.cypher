// mode: read
// params:
// scope: admin
// returns: count
// why: the embedding backlog `db status` and `/readyz` report.
MATCH (n:Turn)
WHERE n.embed_pending = true
RETURN count(n) AS count
