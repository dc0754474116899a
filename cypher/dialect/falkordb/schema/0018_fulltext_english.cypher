// mode: schema
// params:
// dialect-only: yes
// why: nothing to do on FalkorDB: its RediSearch fulltext indexes stem English words already. The
//      Neo4j file recreates its fulltext indexes with the `english` analyzer to match.
RETURN 0 AS nothing_to_do
