// Browser guide: every live correction of a project with its status on the ladder
// correction -> pattern -> preference -> rule, sightings and last sighting.
// :param project => 'my-project'
// params: project
MATCH (c:Correction)
WHERE c.project = $project AND c.expired_at > c.recorded_at AND c.valid_to > c.valid_from
RETURN c.id AS id, c.status AS status, c.rule_text AS rule, c.reinforcement AS sightings,
       size(c.sessions) AS sessions, c.confidence AS confidence, c.last_seen AS last_seen_ms
ORDER BY sightings DESC
