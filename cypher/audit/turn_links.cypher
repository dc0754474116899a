// mode: read
// params: project
// returns: item_id, turn_id, type
// why: provenance for `remgraph eval knowledge`: every relationship between a project's turns and
//      another node, in either direction (DERIVED_FROM, MENTIONS and any later kind), except the
//      session's HAS_TURN, which says where a turn sits, not what was derived from it.
MATCH (t:Turn)-[r]-(n)
WHERE t.project = $project AND NOT n:Turn AND type(r) <> 'HAS_TURN'
RETURN n.id AS item_id, t.id AS turn_id, type(r) AS type
