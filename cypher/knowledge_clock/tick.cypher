// mode: write
// params:
// scope: internal
// returns: seq
// why: the bump an adapter runs after an autocommit query that may change knowledge (a purge):
//      such a query runs in transactions of its own, so the registry cannot put
//      `knowledge_clock.bump` before it. The composed text is that bump.
RETURN knowledge_clock.seq AS seq
