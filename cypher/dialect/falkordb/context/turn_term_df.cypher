// mode: read
// params: words, projects
// returns: word, df_all, df
// dialect-only: yes
// why: document frequency of each query word, in one round trip (a word without matches is
//      absent): over the whole index (df_all, what a query with the word makes the engine
//      enumerate) and in the caller's projects (df, for BM25's idf). Cached by the service;
//      decides which words the fulltext query sends (common ones are scored, not searched).
UNWIND $words AS word
CALL db.idx.fulltext.queryNodes('Turn', word) YIELD node
RETURN word AS word, count(node) AS df_all,
       sum(CASE WHEN node.project IN $projects OR '*' IN $projects THEN 1 ELSE 0 END) AS df
