// mode: read
// params: ids
// returns: props
UNWIND $ids AS id
MATCH (t:Topic {id: id})
RETURN t {.*, embedding: null} AS props
