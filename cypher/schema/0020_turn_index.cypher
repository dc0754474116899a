// mode: schema
// params:
// why: the turn clock (`recall.turn_index`) is one node merged by id inside every turn write, and
//      each such write logs what it changed in a `TurnChange` read by sequence number.
CREATE CONSTRAINT turn_clock_id IF NOT EXISTS FOR (n:TurnClock) REQUIRE n.id IS UNIQUE
;
CREATE INDEX turn_change_seq IF NOT EXISTS FOR (n:TurnChange) ON (n.seq)
