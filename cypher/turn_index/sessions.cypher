// mode: read
// params: projects, ids
// returns: id, quality
// why: the quality of a project's sessions for the in-process turn index: every session
//      (`ids` null) or those among `ids` (a write changed them).
MATCH (s:Session)
WHERE s.project IN $projects AND ($ids IS NULL OR s.id IN $ids)
RETURN s.id AS id, s.quality AS quality
