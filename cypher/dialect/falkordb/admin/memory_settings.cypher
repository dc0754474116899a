// mode: read
// params:
// returns: name, value
// dialect-only: yes
// why: nothing to report: the embedded engine holds its graph in memory and has no heap or page
//      cache settings (Neo4j's file reads them). An empty result keeps both dialects' columns.
UNWIND [] AS name
RETURN name AS name, name AS value
