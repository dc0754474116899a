// mode: write
// params: paths
// knowledge: untouched
// scope: admin
// returns: deleted
// why: the ingest state of the files an evaluation read (a `SourceFile` carries no project), removed
//      with the evaluation's project so a later run of the same file is not skipped as unchanged.
MATCH (f:SourceFile)
WHERE f.path IN $paths
DETACH DELETE f
RETURN count(*) AS deleted
