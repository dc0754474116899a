// mode: read
// rows: collected
// params: q, k, cap, projects, as_of, known_at
// returns: id, score, text
// dialect-only: yes
// why: BM25 (Lucene) candidates for context ranking; project filter in Cypher ('*' = every project).
//      At most $cap index matches are read per index (best Lucene score first): a word in most documents
//      must not make one query enumerate them all.
CALL db.index.fulltext.queryNodes('turn_text', $q) YIELD node, score
WITH node, score LIMIT $cap
WITH node, score
WHERE (node.project IN $projects OR '*' IN $projects)
  AND node.valid_from <= $as_of AND node.valid_to > $as_of
  AND node.recorded_at <= $known_at AND node.expired_at > $known_at
RETURN node.id AS id, score AS score, node.text AS text
ORDER BY score DESC, id
LIMIT $k
