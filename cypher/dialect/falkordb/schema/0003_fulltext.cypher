// mode: schema
// params:
// dialect-only: yes
// why: RediSearch fulltext indexes (one per label, several properties); queried by label.
CALL db.idx.fulltext.createNodeIndex('Turn', 'text')
;
CALL db.idx.fulltext.createNodeIndex('Lesson', 'title', 'content', 'summary')
;
CALL db.idx.fulltext.createNodeIndex('Correction', 'rule_text', 'corrected_behaviour')
;
CALL db.idx.fulltext.createNodeIndex('Fact', 'statement')
;
CALL db.idx.fulltext.createNodeIndex('Topic', 'title')
;
CALL db.idx.fulltext.createNodeIndex('Primer', 'text')
;
CALL db.idx.fulltext.createNodeIndex('ReferenceLayer', 'text')
