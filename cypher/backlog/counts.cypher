// mode: read
// params:
// scope: admin
// returns: kind, count
// why: the backlog per kind, for `db status` and `/readyz`.
MATCH (b:Backlog)
RETURN b.kind AS kind, count(b) AS count
ORDER BY kind
