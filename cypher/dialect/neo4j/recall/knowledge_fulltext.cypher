// mode: read
// rows: collected
// params: q, k, cap, projects, as_of, known_at
// dialect-only: yes
// why: knowledge candidates for context (lessons, corrections, facts, topics, reference layers,
//      primers) with the turns they point back to; each index by name (Lucene). At most $cap
//      index matches are read per index (best Lucene score first): a word in most documents must not
//      make one query enumerate them all. Each branch's tail is shared (recall.*_hit fragments).
CALL db.index.fulltext.queryNodes('lesson_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.derived_hit
UNION ALL
CALL db.index.fulltext.queryNodes('correction_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.derived_hit
UNION ALL
CALL db.index.fulltext.queryNodes('fact_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.derived_hit
UNION ALL
CALL db.index.fulltext.queryNodes('topic_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.topic_hit
UNION ALL
CALL db.index.fulltext.queryNodes('reference_layer_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.layer_hit
UNION ALL
CALL db.index.fulltext.queryNodes('primer_text', $q) YIELD node AS n, score
WITH n, score LIMIT $cap
// include: recall.layer_hit
