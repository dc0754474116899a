// mode: read
// rows: collected
// params: ids, projects, vector
// returns: id, similarity
// dialect-only: yes
// why: cosine similarity to the query of knowledge items the vector search did not return (found
//      by fulltext or through their turns), so every knowledge candidate has a vector score on the
//      turns' scale, as every turn has.
MATCH (n:Lesson)
WHERE n.id IN $ids AND (n.project IN $projects OR '*' IN $projects) AND n.embedding IS NOT NULL
RETURN n.id AS id, 2.0 * vector.similarity.cosine(n.embedding, $vector) - 1.0 AS similarity
UNION ALL
MATCH (n:Correction)
WHERE n.id IN $ids AND (n.project IN $projects OR '*' IN $projects) AND n.embedding IS NOT NULL
RETURN n.id AS id, 2.0 * vector.similarity.cosine(n.embedding, $vector) - 1.0 AS similarity
UNION ALL
MATCH (n:Fact)
WHERE n.id IN $ids AND (n.project IN $projects OR '*' IN $projects) AND n.embedding IS NOT NULL
RETURN n.id AS id, 2.0 * vector.similarity.cosine(n.embedding, $vector) - 1.0 AS similarity
UNION ALL
MATCH (n:Topic)
WHERE n.id IN $ids AND (n.project IN $projects OR '*' IN $projects) AND n.embedding IS NOT NULL
RETURN n.id AS id, 2.0 * vector.similarity.cosine(n.embedding, $vector) - 1.0 AS similarity
