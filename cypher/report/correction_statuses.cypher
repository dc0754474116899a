// mode: read
// params: projects, now
// returns: status, confirmed, n
// why: the HTML report's graduation funnel: open corrections per status (and confirmed or not).
MATCH (c:Correction)
WHERE (c.project IN $projects OR '*' IN $projects)
  AND c.valid_from <= $now AND c.valid_to > $now
  AND c.recorded_at <= $now AND c.expired_at > $now
RETURN c.status AS status, coalesce(c.confirmed, false) AS confirmed, count(c) AS n
ORDER BY status, confirmed
