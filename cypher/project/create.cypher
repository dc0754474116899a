// mode: write
// params: row
// knowledge: untouched
// scope: admin
// returns: id
// why: CREATE, not MERGE: the uniqueness constraint on Project.id turns a taken slug into a
//      ConflictError (the API's createProject relies on it).
CREATE (n:Project)
SET n = $row
RETURN n.id AS id
