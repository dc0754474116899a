// mode: write
// params: rows
// knowledge: untouched
// scope: admin
// returns: id
// why: the journal of applied REM actions: what each changed (before-image as JSON, edges it
//      created), so `remgraph rem undo RUN_ID` can undo a run.
UNWIND $rows AS row
MERGE (a:RemAction {id: row.id})
ON CREATE SET a += row
RETURN a.id AS id
