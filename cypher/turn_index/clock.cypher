// mode: read
// rows: collected
// params:
// scope: internal
// returns: epoch, seq, kept_from
// why: the turn clock (`recall.turn_index`): its sequence number moves on every write to a turn or a
//      session, its epoch when the graph is wiped or a project purged; read before every `context`
//      call to tell whether the in-process turn index is current.
MATCH (clock:TurnClock {id: 'turns'})
RETURN clock.epoch AS epoch, clock.seq AS seq, coalesce(clock.kept_from, 0) AS kept_from
