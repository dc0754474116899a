// fragment: yes
// params:
// returns: id, valid_from, valid_to, valid_to_was, valid_to_until, recorded_at, expired_at, embedding
// why: the columns of knowledge_index.times for the item the including branch binds as `n`.
RETURN n.id AS id, n.valid_from AS valid_from, n.valid_to AS valid_to,
       n.valid_to_was AS valid_to_was, n.valid_to_until AS valid_to_until,
       n.recorded_at AS recorded_at, n.expired_at AS expired_at, n.embedding AS embedding
