// mode: read
// params: kind, limit
// scope: admin
// returns: id, kind, order_key, project, session_id, payload, turns
// why: items of one kind in processing order (`order_key`), so a drain interrupted anywhere and
//      resumed applies them in the order one uninterrupted drain would.
MATCH (b:Backlog)
WHERE b.kind = $kind
RETURN b.id AS id, b.kind AS kind, b.order_key AS order_key, b.project AS project,
       b.session_id AS session_id, b.payload AS payload, b.turns AS turns
ORDER BY order_key, id
LIMIT $limit
