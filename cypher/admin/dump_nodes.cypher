// mode: read
// params:
// returns: labels, id, props
// why: a whole-database picture (embeddings aside) taken before and after an evaluation on a
//      shared database, to prove it left everything else as it found it. The turn clock and its
//      change log are bookkeeping every write moves (`turn_index.bump`), not data.
MATCH (n)
WHERE NOT n:TurnClock AND NOT n:TurnChange AND NOT n:KnowledgeClock
RETURN labels(n) AS labels, n.id AS id, n {.*, embedding: null} AS props
