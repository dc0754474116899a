// mode: read
// params: ids
// scope: internal
// returns: props
UNWIND $ids AS id
MATCH (f:Fact {id: id})
RETURN f {.*, embedding: null} AS props
