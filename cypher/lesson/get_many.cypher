// mode: read
// params: ids
// returns: props
UNWIND $ids AS id
MATCH (l:Lesson {id: id})
RETURN l {.*, embedding: null} AS props
