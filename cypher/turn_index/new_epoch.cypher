// mode: write
// params:
// knowledge: untouched
// scope: internal
// returns: epoch
// why: turns were deleted (a project purged): every in-process turn index is loaded again in full,
//      as deletions leave no `changed_seq` to read.
MERGE (clock:TurnClock {id: 'turns'})
ON CREATE SET clock.seq = 0
SET clock.epoch = timestamp(), clock.seq = clock.seq + 1
RETURN clock.epoch AS epoch
