"""remgraph's composition root: the `remgraph` CLI and the wiring of ingest, consolidate and api."""

__version__ = "0.1.0"
