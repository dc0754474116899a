// mode: write
// params: rows
// knowledge: untouched
// scope: admin
// returns: count
// why: idempotent bulk write, one round trip per batch. A re-upsert keeps the first recorded_at and
//      never reopens a closed node (interval ends only shrink); the embedding is written apart.
UNWIND $rows AS row
MERGE (n:Project {id: row.id})
WITH n, row, n.recorded_at AS rec, n.valid_to AS vto, n.expired_at AS exp
SET n += row
SET n.recorded_at = coalesce(rec, row.recorded_at),
    n.valid_to = CASE WHEN vto IS NULL OR vto > row.valid_to THEN row.valid_to ELSE vto END,
    n.expired_at = CASE WHEN exp IS NULL OR exp > row.expired_at THEN row.expired_at ELSE exp END
RETURN count(n) AS count
