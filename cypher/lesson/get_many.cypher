// mode: read
// params: ids
// scope: internal
// returns: props
UNWIND $ids AS id
MATCH (l:Lesson {id: id})
RETURN l {.*, embedding: null} AS props
