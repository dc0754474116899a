// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: count
// why: Neo4j stores a plain LIST<FLOAT>; FalkorDB needs vecf32 (dialect file). A vector ends the
//      turn's place in the embedding backlog and moves the turn
//      clock.
UNWIND $rows AS row
MATCH (n:Turn {id: row.id})
SET n.embedding = row.embedding, n.embed_pending = null, n.embed_text = null
WITH collect(n.id) AS changed, collect(DISTINCT n.project) AS changed_in, 'turn' AS change_kind
// include: turn_index.bump
WITH size(changed) AS written, count(*) AS logged
RETURN written AS count
