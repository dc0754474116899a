// mode: schema
// params:
// why: the embedding backlog: turns written without a vector carry `embed_pending = true` until
//      the background embedder fills them; `Backlog` items (deferred extraction steps, due topic
//      weights and project snapshots) are looked up by id and read in `order_key` order.
CREATE INDEX turn_embed_pending IF NOT EXISTS FOR (n:Turn) ON (n.embed_pending)
;
CREATE INDEX backlog_id IF NOT EXISTS FOR (n:Backlog) ON (n.id)
;
CREATE INDEX backlog_kind IF NOT EXISTS FOR (n:Backlog) ON (n.kind)
