// mode: autocommit
// params:
// why: tests and `remgraph db reset --yes` start from an empty graph; schema and indexes survive.
MATCH (n)
WHERE NOT n:SchemaMigration
DETACH DELETE n
