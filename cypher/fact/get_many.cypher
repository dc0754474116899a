// mode: read
// params: ids
// returns: props
UNWIND $ids AS id
MATCH (f:Fact {id: id})
RETURN f {.*, embedding: null} AS props
