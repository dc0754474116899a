// mode: read
// rows: collected
// params: ids, projects
// returns: id, text
// why: the text of the few candidate turns that diversity and packing look at; candidates are
//      fetched without it (`recall.turns_fetch`). Never crosses projects.
MATCH (t:Turn)
WHERE t.id IN $ids AND (t.project IN $projects OR '*' IN $projects)
RETURN t.id AS id, t.text AS text
