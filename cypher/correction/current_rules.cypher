// mode: read
// params: projects, statuses, now
// returns: props
// why: candidates of `rules(project)`: open corrections of the readable projects (`*` = all)
//      whose status is in $statuses or that a person confirmed; `knowledge.rules.current_rules`
//      makes the final decision and the order (status, then effective weight). Graduated
//      corrections are few per project, so the read is not paged.
MATCH (c:Correction)
WHERE (c.project IN $projects OR '*' IN $projects)
  AND c.valid_from <= $now AND c.valid_to > $now
  AND c.recorded_at <= $now AND c.expired_at > $now
  AND (c.status IN $statuses OR c.confirmed = true)
RETURN c {.*, embedding: null} AS props
ORDER BY c.id
