// mode: read
// params:
// returns: label, count
// why: `remgraph db status` and `db stats` show how many nodes of each label the graph holds. The
//      clocks and the turn change log are bookkeeping writes move (`turn_index.bump`, `knowledge_clock.bump`), not
//      data: a resumed ingest writes more log entries than a clean one, and holds the same graph.
MATCH (n)
WHERE NOT n:TurnClock AND NOT n:TurnChange AND NOT n:KnowledgeClock
RETURN labels(n)[0] AS label, count(n) AS count
ORDER BY label
