// mode: write
// params: id, project, text, at, open, principal, items
// returns: id, linked
// why: one node per `context` request plus a GOT edge (rank, score) to every item it returned, so
//      "what did the agent get for this question?" is a graph query. Each item is looked up by id
//      under the label of its kind (index lookups; a label-less match would scan the graph).
MERGE (q:ContextQuery {id: $id})
ON CREATE SET q.project = $project, q.query = $text, q.at = $at, q.principal = $principal,
              q.item_ids = [i IN $items | i.id],
              q.valid_from = $at, q.valid_to = $open, q.recorded_at = $at, q.expired_at = $open
WITH q
UNWIND $items AS item
OPTIONAL MATCH (t:Turn {id: item.id}) WHERE item.kind = 'turn'
OPTIONAL MATCH (l:Lesson {id: item.id}) WHERE item.kind = 'lesson'
OPTIONAL MATCH (c:Correction {id: item.id}) WHERE item.kind = 'correction'
OPTIONAL MATCH (f:Fact {id: item.id}) WHERE item.kind = 'fact'
OPTIONAL MATCH (tp:Topic {id: item.id}) WHERE item.kind = 'topic'
OPTIONAL MATCH (r:ReferenceLayer {id: item.id}) WHERE item.kind = 'reference_layer'
OPTIONAL MATCH (p:Primer {id: item.id}) WHERE item.kind = 'primer'
WITH q, item, coalesce(t, l, c, f, tp, r, p) AS n
WHERE n IS NOT NULL
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = $at, g.valid_to = $open,
              g.recorded_at = $at, g.expired_at = $open
RETURN q.id AS id, count(g) AS linked
