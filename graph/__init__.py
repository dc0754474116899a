"""remgraph's core: domain models, the Cypher registry, engine adapters and repositories.

This package depends on nothing else in the repository; `ingest`, `consolidate` and `api` build
on it.
"""
