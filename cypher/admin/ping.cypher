// mode: read
// params:
// returns: ok
RETURN 1 AS ok
