// mode: read
// params:
// returns: name, quantized, options
// dialect-only: yes
// why: the vector indexes and their options (M, efConstruction, efRuntime); FalkorDB keeps full
//      float32 vectors, never quantized. The vector benchmarks record them.
CALL db.indexes() YIELD label, properties, types, options
UNWIND properties AS prop
WITH label, prop, types[prop] AS kinds, options[prop] AS o
WHERE 'VECTOR' IN kinds
RETURN label + '.' + prop AS name, false AS quantized, o AS options
