// mode: write
// params: row
// knowledge: untouched
// scope: admin
// returns: id
// why: written last for a file, after its turns: a crash before this line means a re-run redoes
//      the file (idempotent MERGEs), never that turns are skipped.
MERGE (f:SourceFile {id: $row.id})
SET f += $row
RETURN f.id AS id
