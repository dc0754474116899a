// mode: schema
// params:
// why: the same range indexes (FalkorDB's CREATE INDEX takes neither a name nor IF NOT EXISTS).
CREATE INDEX FOR (n:Turn) ON (n.embed_pending)
;
CREATE INDEX FOR (n:Backlog) ON (n.id)
;
CREATE INDEX FOR (n:Backlog) ON (n.kind)
