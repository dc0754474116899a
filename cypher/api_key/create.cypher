// mode: write
// params: row
// knowledge: untouched
// returns: id
// why: keys are stored by the SHA-256 of the secret only; the secret itself is shown once.
MERGE (k:ApiKey {id: $row.id})
SET k += $row
RETURN k.id AS id
