// mode: read
// params: project, since
// returns: text, source
// why: staleness checks whether an item's keywords match anything asked recently: the `context`
//      requests the API records (ContextQuery nodes; not the rules served by `rules` or the
//      session-start hook, which ask nothing), and what users wrote in recent turns.
MATCH (q:ContextQuery)
WHERE q.at >= $since AND ($project IS NULL OR q.project = $project)
  AND coalesce(q.source, 'context') = 'context'
RETURN q.query AS text, 'query' AS source
UNION ALL
MATCH (t:Turn)
WHERE t.role = 'user' AND t.valid_from >= $since AND ($project IS NULL OR t.project = $project)
RETURN t.text AS text, 'turn' AS source
