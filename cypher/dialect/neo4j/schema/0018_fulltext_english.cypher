// mode: schema
// params:
// dialect-only: yes
// why: fulltext indexes with Lucene's `english` analyzer (stemming, English stop words), so a word
//      matches the same turns as on FalkorDB, whose RediSearch indexes stem English (issue 17:
//      with the default `standard-no-stop-words`, "tests" missed "test" and "testing", and
//      `context` ranked other turns than FalkorDB). remgraph scores the matches itself (BM25 in
//      `recall.lexical`); the analyzer only decides which turns match.
DROP INDEX turn_text IF EXISTS
;
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS FOR (n:Turn) ON EACH [n.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
;
DROP INDEX lesson_text IF EXISTS
;
CREATE FULLTEXT INDEX lesson_text IF NOT EXISTS FOR (n:Lesson) ON EACH [n.title, n.content, n.summary]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
;
DROP INDEX correction_text IF EXISTS
;
CREATE FULLTEXT INDEX correction_text IF NOT EXISTS FOR (n:Correction) ON EACH [n.rule_text, n.corrected_behaviour]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
;
DROP INDEX fact_text IF EXISTS
;
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) ON EACH [n.statement]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
;
DROP INDEX topic_text IF EXISTS
;
CREATE FULLTEXT INDEX topic_text IF NOT EXISTS FOR (n:Topic) ON EACH [n.title]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
;
DROP INDEX primer_text IF EXISTS
;
CREATE FULLTEXT INDEX primer_text IF NOT EXISTS FOR (n:Primer) ON EACH [n.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
;
DROP INDEX reference_layer_text IF EXISTS
;
CREATE FULLTEXT INDEX reference_layer_text IF NOT EXISTS FOR (n:ReferenceLayer) ON EACH [n.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
