// mode: read
// params:
// returns: label, count
// why: `remgraph db status` and `db stats` show how many nodes of each label the graph holds.
MATCH (n)
RETURN labels(n)[0] AS label, count(n) AS count
ORDER BY label
