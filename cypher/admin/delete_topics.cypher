// mode: write
// params: ids
// scope: admin
// returns: deleted
// why: topics an evaluation created (they did not exist before it) go with its projects.
UNWIND $ids AS id
MATCH (t:Topic {id: id})
DETACH DELETE t
RETURN count(*) AS deleted
