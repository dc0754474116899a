"""remgraph's composition root: the `remgraph` CLI and the wiring between ingest, consolidate and api."""

__version__ = "0.1.0"
