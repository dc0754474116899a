// mode: write
// params: id, now
// knowledge: untouched
// returns: id, revoked_at
// why: revoking closes the key record (never deleted), so audits still see it.
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, $now),
    k.expired_at = CASE WHEN k.expired_at > $now THEN $now ELSE k.expired_at END
RETURN k.id AS id, k.revoked_at AS revoked_at
