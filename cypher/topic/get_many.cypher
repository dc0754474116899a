// mode: read
// params: ids
// scope: internal
// returns: props
UNWIND $ids AS id
MATCH (t:Topic {id: id})
RETURN t {.*, embedding: null} AS props
