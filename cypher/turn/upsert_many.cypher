// mode: write
// params: rows
// knowledge: untouched
// scope: internal
// returns: count
// why: idempotent bulk write, one round trip per batch. A re-upsert keeps the first recorded_at and
//      never reopens a closed node (interval ends only shrink); the embedding is written apart.
//      Rows whose row_hash is unchanged are skipped: FalkorDB re-indexes a node (fulltext, vector)
//      on any SET, which made re-ingesting an unchanged session ~10x slower than the first time.
//      The turns written move the turn clock (`turn_index.bump`).
UNWIND $rows AS row
MERGE (n:Turn {id: row.id})
WITH n, row, n.recorded_at AS rec, n.valid_to AS vto, n.expired_at AS exp
WHERE n.row_hash IS NULL OR n.row_hash <> row.row_hash
SET n += row
SET n.recorded_at = coalesce(rec, row.recorded_at),
    n.valid_to = CASE WHEN vto IS NULL OR vto > row.valid_to THEN row.valid_to ELSE vto END,
    n.expired_at = CASE WHEN exp IS NULL OR exp > row.expired_at THEN row.expired_at ELSE exp END
WITH collect(n.id) AS changed, collect(DISTINCT n.project) AS changed_in, 'turn' AS change_kind
// include: turn_index.bump
WITH size(changed) AS written, count(*) AS logged
RETURN written AS count
