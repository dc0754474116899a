// mode: schema
// params:
// dialect-only: yes
// why: 384-d cosine vector indexes (all-MiniLM-L6-v2), named <label>_embedding.
CREATE VECTOR INDEX turn_embedding IF NOT EXISTS FOR (n:Turn) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'} }
;
CREATE VECTOR INDEX topic_embedding IF NOT EXISTS FOR (n:Topic) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'} }
;
CREATE VECTOR INDEX lesson_embedding IF NOT EXISTS FOR (n:Lesson) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'} }
;
CREATE VECTOR INDEX correction_embedding IF NOT EXISTS FOR (n:Correction) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'} }
;
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (n:Fact) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'} }
