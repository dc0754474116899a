// mode: read
// params: q, k, cap, projects, as_of, known_at
// dialect-only: yes
// why: knowledge candidates for context (lessons, corrections, facts, topics, reference layers,
//      primers) with the turns they point back to; each index by label (RediSearch). At most $cap
//      index matches are read per index (in the index's order): a word in most documents must not
//      make one query enumerate them all. Each branch's tail is shared (recall.*_hit fragments).
CALL db.idx.fulltext.queryNodes('Lesson', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.derived_hit
UNION ALL
CALL db.idx.fulltext.queryNodes('Correction', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.derived_hit
UNION ALL
CALL db.idx.fulltext.queryNodes('Fact', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.derived_hit
UNION ALL
CALL db.idx.fulltext.queryNodes('Topic', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.topic_hit
UNION ALL
CALL db.idx.fulltext.queryNodes('ReferenceLayer', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.layer_hit
UNION ALL
CALL db.idx.fulltext.queryNodes('Primer', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.layer_hit
