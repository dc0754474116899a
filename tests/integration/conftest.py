"""Integration fixtures: the engine-parametrised `any_db` for the contract suites.

`any_db` runs a test on the embedded FalkorDB always and on Neo4j when one is reachable (else that
leg skips naming why); see `tests/engines.py`.
"""

from tests.engines import any_db, neo4j_conn

__all__ = ["any_db", "neo4j_conn"]
