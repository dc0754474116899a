"""Storage: domain models, the Cypher registry, engine adapters and repositories.

This package depends only on `core`; every app package builds on it.
"""
