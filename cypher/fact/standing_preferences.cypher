// mode: read
// params: projects, now
// returns: props
// why: candidates of `rules(project)` beside the corrections: the preferences the user stated
//      about themselves (a diet, an allergy, the name to use) that hold now, in the readable
//      projects (`*` = all). `knowledge.rules.in_force` decides and orders. Few per project.
MATCH (f:Fact)
WHERE (f.project IN $projects OR '*' IN $projects)
  AND f.kind = 'preference'
  AND f.valid_from <= $now AND f.valid_to > $now
  AND f.recorded_at <= $now AND f.expired_at > $now
RETURN f {.*, embedding: null} AS props
ORDER BY f.id
