// mode: read
// params:
// scope: admin
// returns: id, props
// why: topics are global today, so an evaluation that ingests into a shared database merges into
//      and re-weighs other projects' topics; it keeps their properties (embeddings aside, which it
//      never rewrites with other values) to put them back afterwards.
MATCH (t:Topic)
RETURN t.id AS id, t {.*, embedding: null} AS props
ORDER BY id
