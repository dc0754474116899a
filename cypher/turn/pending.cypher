// mode: read
// params: limit
// scope: admin
// returns: id, text
// why: the next turns the background embedder fills: written without a vector, with the text to
//      embed (date prefix included) kept beside them until then.
MATCH (n:Turn)
WHERE n.embed_pending = true
RETURN n.id AS id, n.embed_text AS text
LIMIT $limit
