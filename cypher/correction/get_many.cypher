// mode: read
// params: ids
// scope: internal
// returns: props
UNWIND $ids AS id
MATCH (c:Correction {id: id})
RETURN c {.*, embedding: null} AS props
