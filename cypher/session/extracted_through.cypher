// mode: read
// params: ids
// scope: internal
// returns: id, extracted_through
// why: the per-session extraction watermark: the highest ordinal whose knowledge is written, so
//      a re-run after a crash extracts exactly the turns a killed run did not finish.
UNWIND $ids AS id
MATCH (s:Session {id: id})
RETURN s.id AS id, s.extracted_through AS extracted_through
