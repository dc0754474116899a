// mode: read
// params:
// scope: admin
// returns: kind, count, turns
// why: the backlog per kind (and the turns queued extractions cover), for `db status` and
//      `/readyz`.
MATCH (b:Backlog)
RETURN b.kind AS kind, count(b) AS count, sum(coalesce(b.turns, 0)) AS turns
ORDER BY kind
