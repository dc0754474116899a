// fragment: yes
// params:
// why: advances the knowledge clock. The registry puts this before the first clause of every
//      write query whose header does not say `knowledge: untouched` (`graph.cypher`), so a write
//      that may change a lesson, correction, fact, topic, reference layer or primer moves the
//      clock in its own transaction, and no writer can forget it. Caches of knowledge reads
//      (`recall.knowledge_cache`) hold what they read under the clock they read first, and
//      are used only while it has not moved. The epoch is set when the node is made: a wiped
//      graph starts a new one, so an old (epoch, seq) never matches again.
MERGE (knowledge_clock:KnowledgeClock {id: 'knowledge'})
ON CREATE SET knowledge_clock.epoch = timestamp(), knowledge_clock.seq = 0
SET knowledge_clock.seq = knowledge_clock.seq + 1
WITH knowledge_clock
