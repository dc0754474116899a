// mode: schema
// params:
// why: the same constraint and range index (FalkorDB needs an exact-match index before a unique
//      constraint, and its CREATE INDEX takes neither a name nor IF NOT EXISTS).
CREATE INDEX FOR (n:TurnClock) ON (n.id)
;
CREATE CONSTRAINT turn_clock_id IF NOT EXISTS FOR (n:TurnClock) REQUIRE n.id IS UNIQUE
;
CREATE INDEX FOR (n:TurnChange) ON (n.seq)
