// mode: write
// params: project
// returns: deleted
// why: purging a project deletes its topics (each topic has one owner, its `projects` list is
//      that one slug) with their MENTIONS and RELATED_TO edges; legacy global topics listing
//      several projects lose the purged one (`admin.unlist_project_topics`; FalkorDB drops a SET
//      followed by a filtering WITH in one statement, hence two queries).
MATCH (t:Topic)
WHERE $project IN t.projects AND all(p IN t.projects WHERE p = $project)
DETACH DELETE t
RETURN count(*) AS deleted
