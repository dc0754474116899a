// mode: schema
// params:
// dialect-only: yes
// why: Lucene fulltext indexes, named <label>_text; queried by name in the search_fulltext files.
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS FOR (n:Turn) ON EACH [n.text]
;
CREATE FULLTEXT INDEX lesson_text IF NOT EXISTS FOR (n:Lesson) ON EACH [n.title, n.content, n.summary]
;
CREATE FULLTEXT INDEX correction_text IF NOT EXISTS FOR (n:Correction) ON EACH [n.rule_text, n.corrected_behaviour]
;
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) ON EACH [n.statement]
;
CREATE FULLTEXT INDEX topic_text IF NOT EXISTS FOR (n:Topic) ON EACH [n.title]
;
CREATE FULLTEXT INDEX primer_text IF NOT EXISTS FOR (n:Primer) ON EACH [n.text]
;
CREATE FULLTEXT INDEX reference_layer_text IF NOT EXISTS FOR (n:ReferenceLayer) ON EACH [n.text]
