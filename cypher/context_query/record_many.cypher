// mode: write
// params: rows, open
// knowledge: untouched
// scope: internal
// returns: linked
// why: one ContextQuery node per `context` request plus a GOT edge (rank, score) to every item it
//      returned, so "what did the agent get for this question?" is a graph query. The API's
//      background recorder writes every request of the last <= 250 ms in one statement. Each item
//      is looked up by id under the label of its kind (index lookups; a label-less match would
//      scan the graph). Rows without items still get their node (written before the unwind).
UNWIND $rows AS row
MERGE (q:ContextQuery {id: row.id})
ON CREATE SET q.project = row.project, q.query = row.text, q.at = row.at,
              q.principal = row.principal, q.item_ids = [i IN row.items | i.id],
              q.valid_from = row.at, q.valid_to = $open, q.recorded_at = row.at,
              q.expired_at = $open
WITH q, row
UNWIND row.items AS item
OPTIONAL MATCH (t:Turn {id: item.id}) WHERE item.kind = 'turn'
OPTIONAL MATCH (l:Lesson {id: item.id}) WHERE item.kind = 'lesson'
OPTIONAL MATCH (c:Correction {id: item.id}) WHERE item.kind = 'correction'
OPTIONAL MATCH (f:Fact {id: item.id}) WHERE item.kind = 'fact'
OPTIONAL MATCH (tp:Topic {id: item.id}) WHERE item.kind = 'topic'
OPTIONAL MATCH (r:ReferenceLayer {id: item.id}) WHERE item.kind = 'reference_layer'
OPTIONAL MATCH (p:Primer {id: item.id}) WHERE item.kind = 'primer'
WITH q, row, item, coalesce(t, l, c, f, tp, r, p) AS n
WHERE n IS NOT NULL
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = row.at,
              g.valid_to = $open, g.recorded_at = row.at, g.expired_at = $open
RETURN count(g) AS linked
