// Browser guide: the context an agent got for a query: the recorded request and the ranked items it
// returned, with each item's evidence turns.
// :param query_text => 'how do we run the tests'
// params: query_text
// scope: admin
MATCH (q:ContextQuery)
WHERE toLower(q.query) CONTAINS toLower($query_text)
WITH q ORDER BY q.at DESC LIMIT 1
MATCH (q)-[g:GOT]->(item)
OPTIONAL MATCH (item)-[d:DERIVED_FROM]->(t:Turn)
RETURN q, g, item, d, t
