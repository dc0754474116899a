// fragment: yes
// params: ids, top, projects, window
// why: the hit turns `ids` plus the turns within `window` steps along NEXT (same session) of the
//      best hits `top`, each once as `t`, with its session `s`; never crosses projects.
MATCH (h:Turn)
WHERE h.id IN $ids AND (h.project IN $projects OR '*' IN $projects)
OPTIONAL MATCH (h)-[:NEXT*1..3]-(n:Turn)
WHERE h.id IN $top AND n.session_id = h.session_id AND abs(n.ordinal - h.ordinal) <= $window
WITH collect(DISTINCT h) + collect(DISTINCT n) AS found
UNWIND found AS t
WITH DISTINCT t
OPTIONAL MATCH (s:Session)-[:HAS_TURN]->(t)
