// mode: schema
// params:
// dialect-only: yes
// why: nothing to do on FalkorDB: its vector indexes are not quantized, so scores are exact
//      cosine similarities already. The Neo4j file recreates its indexes with quantization off.
RETURN 0 AS nothing_to_do
