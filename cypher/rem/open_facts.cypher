// mode: read
// params: project, now
// returns: id, kind, statement, subject, object, valid_from, turn_ids
MATCH (f:Fact)
WHERE f.valid_to > $now AND f.expired_at > $now AND ($project IS NULL OR f.project = $project)
RETURN f.id AS id, f.kind AS kind, f.statement AS statement, f.subject AS subject,
       f.object AS object, f.valid_from AS valid_from, f.source_turn_ids AS turn_ids
