"""Integration fixtures: `any_db` (the contract suites' name for `graph_db`), `both_engines` (one
graph on each engine at once, for comparisons) and the Neo4j server.

All follow `graph_settings`' engines: the embedded FalkorDB always, Neo4j when one is reachable;
see `tests/engines.py`.
"""

from tests.engines import any_db, both_engines

__all__ = ["any_db", "both_engines"]
