// mode: read
// params: projects
// returns: turns, avg_chars
// why: collection statistics for BM25 (cached by the service).
MATCH (t:Turn)
WHERE t.project IN $projects OR '*' IN $projects
RETURN count(t) AS turns, avg(size(t.text)) AS avg_chars
