// mode: schema
// params:
// dialect-only: yes
// why: 384-d cosine vector indexes; FalkorDB's queryNodes returns a cosine DISTANCE.
CREATE VECTOR INDEX FOR (n:Turn) ON (n.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}
;
CREATE VECTOR INDEX FOR (n:Topic) ON (n.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}
;
CREATE VECTOR INDEX FOR (n:Lesson) ON (n.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}
;
CREATE VECTOR INDEX FOR (n:Correction) ON (n.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}
;
CREATE VECTOR INDEX FOR (n:Fact) ON (n.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}
