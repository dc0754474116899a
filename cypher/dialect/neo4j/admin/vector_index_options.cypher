// mode: read
// params:
// returns: name, quantized, options
// dialect-only: yes
// why: which vector indexes quantize their vectors (`vector.quantization.enabled`; Neo4j 5.26 turns
//      it on unless the index says otherwise); the vector benchmarks record and switch it.
SHOW VECTOR INDEXES YIELD name, options
RETURN name AS name,
       coalesce(options.indexConfig.`vector.quantization.enabled`, true) AS quantized,
       options.indexConfig AS options
