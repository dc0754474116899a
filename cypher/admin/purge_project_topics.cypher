// mode: write
// params: project
// returns: deleted
// why: topics are global (a `projects` list): purging a project deletes the topics no other
//      project mentions, with their MENTIONS and RELATED_TO edges (`admin.unlist_project_topics`
//      then takes the project out of the shared ones; FalkorDB drops a SET followed by a filtering
//      WITH in one statement, hence two queries).
MATCH (t:Topic)
WHERE $project IN t.projects AND all(p IN t.projects WHERE p = $project)
DETACH DELETE t
RETURN count(*) AS deleted
