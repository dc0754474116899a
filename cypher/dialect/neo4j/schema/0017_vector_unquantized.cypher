// mode: schema
// params:
// dialect-only: yes
// why: vector indexes with scalar quantization off (5.26 turns it on by default): scores are exact cosine similarities, as on FalkorDB (issue 17).
DROP INDEX turn_embedding IF EXISTS
;
CREATE VECTOR INDEX turn_embedding IF NOT EXISTS FOR (n:Turn) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false} }
;
DROP INDEX topic_embedding IF EXISTS
;
CREATE VECTOR INDEX topic_embedding IF NOT EXISTS FOR (n:Topic) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false} }
;
DROP INDEX lesson_embedding IF EXISTS
;
CREATE VECTOR INDEX lesson_embedding IF NOT EXISTS FOR (n:Lesson) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false} }
;
DROP INDEX correction_embedding IF EXISTS
;
CREATE VECTOR INDEX correction_embedding IF NOT EXISTS FOR (n:Correction) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false} }
;
DROP INDEX fact_embedding IF EXISTS
;
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (n:Fact) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false} }
