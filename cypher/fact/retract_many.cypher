// mode: write
// params: ids, now
// scope: internal
// returns: id
// why: facts the speaker said were WRONG ("I misspoke: ..."): they end in record time
//      (expired_at = now), their valid interval untouched, so reads at a knownAt before now still
//      show what was believed then, and reads at any asOf now show the corrected value instead.
UNWIND $ids AS id
MATCH (n:Fact {id: id})
WHERE n.expired_at > $now
SET n.expired_at = $now
RETURN n.id AS id
