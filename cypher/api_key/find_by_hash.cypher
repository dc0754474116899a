// mode: read
// params: key_hash
// returns: props
MATCH (k:ApiKey)
WHERE k.key_hash = $key_hash
RETURN properties(k) AS props
LIMIT 1
