// mode: read
// rows: collected
// params:
// scope: internal
// returns: epoch, seq, kept_from, knowledge_epoch, knowledge_seq
// why: the graph's two clocks, in one read before every `context` call: the turn clock (its
//      sequence number moves on every write to a turn or a session, its epoch when the graph is
//      wiped or a project purged) tells whether the in-process turn index is current
//      (`recall.turn_index`); the knowledge clock (`knowledge_clock.bump`) whether cached
//      knowledge reads are (`recall.knowledge_cache`). A clock not made yet reads as nulls.
OPTIONAL MATCH (clock:TurnClock {id: 'turns'})
OPTIONAL MATCH (knowledge:KnowledgeClock {id: 'knowledge'})
RETURN clock.epoch AS epoch, clock.seq AS seq, coalesce(clock.kept_from, 0) AS kept_from,
       knowledge.epoch AS knowledge_epoch, knowledge.seq AS knowledge_seq
