// mode: write
// params: rows
// scope: internal
// returns: n
// why: graduation and decay write computed fields (status, effective_weight, decayed_confidence,
//      demoted_for); each row carries only the properties it changes.
UNWIND $rows AS row
MATCH (c:Correction {id: row.id})
SET c += row.props
RETURN count(c) AS n
