// mode: write
// params: rows, open, turn_rows, lesson_rows, correction_rows, fact_rows, topic_rows, reference_layer_rows, primer_rows
// knowledge: untouched
// scope: internal
// returns: recorded
// why: one ContextQuery node per `context` request plus a GOT edge (rank, score) to every item it
//      returned, so "what did the agent get for this question?" is a graph query. The API's
//      background recorder writes every request of the last <= 250 ms in one statement. The
//      items come grouped by kind, one list per label, so each is one index lookup under its
//      own label (seven OPTIONAL MATCHes per item, one per label, took ~1.6x the engine CPU).
//      Each part ends in `count(*)`, which yields a row even when a list is empty, so the next
//      part still runs. An item whose node is missing is not linked. `source` says what served
//      the items: `context`, or `rules` and `session_start` (rules served without a query, so
//      their text is empty); the GOT edges of all three are what `context_query.served` reads.
//      Returns how many requests were recorded.
UNWIND $rows AS row
MERGE (q:ContextQuery {id: row.id})
ON CREATE SET q.project = row.project, q.query = row.text, q.at = row.at,
              q.principal = row.principal, q.item_ids = row.item_ids, q.source = row.source,
              q.valid_from = row.at, q.valid_to = $open, q.recorded_at = row.at,
              q.expired_at = $open
WITH count(*) AS done
UNWIND $turn_rows AS item
MATCH (q:ContextQuery {id: item.query})
MATCH (n:Turn {id: item.id})
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = q.at,
              g.valid_to = $open, g.recorded_at = q.at, g.expired_at = $open
WITH count(*) AS done
UNWIND $lesson_rows AS item
MATCH (q:ContextQuery {id: item.query})
MATCH (n:Lesson {id: item.id})
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = q.at,
              g.valid_to = $open, g.recorded_at = q.at, g.expired_at = $open
WITH count(*) AS done
UNWIND $correction_rows AS item
MATCH (q:ContextQuery {id: item.query})
MATCH (n:Correction {id: item.id})
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = q.at,
              g.valid_to = $open, g.recorded_at = q.at, g.expired_at = $open
WITH count(*) AS done
UNWIND $fact_rows AS item
MATCH (q:ContextQuery {id: item.query})
MATCH (n:Fact {id: item.id})
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = q.at,
              g.valid_to = $open, g.recorded_at = q.at, g.expired_at = $open
WITH count(*) AS done
UNWIND $topic_rows AS item
MATCH (q:ContextQuery {id: item.query})
MATCH (n:Topic {id: item.id})
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = q.at,
              g.valid_to = $open, g.recorded_at = q.at, g.expired_at = $open
WITH count(*) AS done
UNWIND $reference_layer_rows AS item
MATCH (q:ContextQuery {id: item.query})
MATCH (n:ReferenceLayer {id: item.id})
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = q.at,
              g.valid_to = $open, g.recorded_at = q.at, g.expired_at = $open
WITH count(*) AS done
UNWIND $primer_rows AS item
MATCH (q:ContextQuery {id: item.query})
MATCH (n:Primer {id: item.id})
MERGE (q)-[g:GOT]->(n)
ON CREATE SET g.rank = item.rank, g.score = item.score, g.valid_from = q.at,
              g.valid_to = $open, g.recorded_at = q.at, g.expired_at = $open
WITH count(*) AS done
RETURN size($rows) AS recorded
