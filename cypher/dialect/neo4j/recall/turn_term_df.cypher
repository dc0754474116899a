// mode: read
// rows: collected
// params: words
// returns: word, df_all
// dialect-only: yes
// why: how many turns of the whole index hold each query word, in one round trip (a word
//      without matches is absent). This is what a query with the word makes the engine
//      enumerate: the service caches it per word and searches only the rarest words (common ones
//      are scored, not searched). Counting touches no property. (A per-word cap would bound the
//      cost, but FalkorDB 4 does not reset a LIMIT inside CALL { } for each UNWIND row.)
UNWIND $words AS word
CALL db.index.fulltext.queryNodes('turn_text', word) YIELD node
RETURN word AS word, count(node) AS df_all
