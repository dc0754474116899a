"""Integration fixtures: `any_db` (the contract suites' name for `graph_db`) and the Neo4j server.

Both follow `graph_settings`' engines: the embedded FalkorDB always, Neo4j when one is reachable;
see `tests/engines.py`.
"""

from tests.engines import any_db

__all__ = ["any_db"]
