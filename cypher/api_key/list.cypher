// mode: read
// params:
// returns: props
MATCH (k:ApiKey)
RETURN properties(k) AS props
ORDER BY k.created_at, k.id
