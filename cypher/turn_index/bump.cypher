// fragment: yes
// params:
// why: advances the turn clock (`recall.turn_index`) inside a write that changed turns or sessions,
//      and logs what changed: the including query binds `changed` (the ids it changed, none: no
//      bump), `changed_in` (their projects) and `change_kind` ('turn' or 'session'), only those. The log is a node of its
//      own: a property set on a turn would make FalkorDB re-index its text and vector. The clock is one node, so
//      writers take its lock in turn: sequence numbers commit in order, and a reader that read
//      the clock at N holds every change up to N once it has read the changes logged after its
//      previous N. The log keeps the last 10,000 writes (`kept_from`): an index older than
//      that is loaded again in full.
WITH changed, changed_in, change_kind WHERE size(changed) > 0
MERGE (clock:TurnClock {id: 'turns'})
ON CREATE SET clock.epoch = timestamp(), clock.seq = 0
SET clock.seq = clock.seq + 1, clock.kept_from = clock.seq + 1 - 10000
CREATE (:TurnChange {seq: clock.seq, kind: change_kind, ids: changed, touched: changed_in})
WITH changed, changed_in, change_kind, clock
OPTIONAL MATCH (old:TurnChange)
WHERE old.seq < clock.kept_from
DELETE old
