// mode: read
// params: q, projects
// returns: df_all, df
// dialect-only: yes
// why: document frequency of one query word: over the whole index (df_all, what a query with the
//      word makes the engine enumerate) and in the caller's projects (df, for BM25's idf). Cached
//      by the service; decides which words the fulltext query sends (common ones are scored, not
//      searched).
CALL db.idx.fulltext.queryNodes('Turn', $q) YIELD node
RETURN count(node) AS df_all,
       sum(CASE WHEN node.project IN $projects OR '*' IN $projects THEN 1 ELSE 0 END) AS df
