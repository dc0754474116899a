// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: n
// why: a run's communities are written while the run is not current; readers never see them
//      until `promote_run` flips the pointer.
UNWIND $rows AS row
MATCH (r:CommunityRun {id: row.run_id})
MERGE (c:Community {id: row.id})
SET c += row
MERGE (c)-[:IN_RUN]->(r)
RETURN count(c) AS n
