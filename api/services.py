"""What the app is built from: injected ports (`ApiServices`) and the lifespan's resources."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ai.embed import Embedder
from api.auth import KeyResolver
from api.ports import Consolidator, TurnIngestor
from api.recorder import ContextQueryRecorder
from graph.db import GraphDB
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.context_queries import ContextQueryRepository
from graph.repositories.scoped import ScopedRepository
from recall.retrieval import RetrievalService


@dataclass(frozen=True)
class ApiServices:
    """Capabilities the composition root injects; each is optional.

    Attributes:
        ingestor: appends turns (`ingestTurns`); without it the mutation answers `Unavailable`.
        consolidator: runs REM jobs (`runJob`, `remStatus`, ...).
        embedder: query embedder; None builds one from the embedding settings on startup.
        db: an already open graph (tests, the eval); None opens the configured engine.
        make_ingestor: builds the ingestor once the graph is open (when `ingestor` is None).
        make_consolidator: builds the consolidator once the graph is open.
    """

    ingestor: TurnIngestor | None = None
    consolidator: Consolidator | None = None
    embedder: Embedder | None = None
    db: GraphDB | None = None
    make_ingestor: Callable[[GraphDB, Embedder], TurnIngestor] | None = None
    make_consolidator: Callable[[GraphDB, Embedder], Consolidator] | None = None


@dataclass
class Resources:
    """Everything a request needs, opened once by the lifespan."""

    db: GraphDB
    scoped: ScopedRepository
    """Scoped reads (pages, lookups) and agent feedback."""
    retrieval: RetrievalService
    """Recall: `context` and `search`."""
    queries: ContextQueryRepository
    recorder: ContextQueryRecorder
    """Records `context` requests in the background; `await recorder.flush()` writes them now."""
    keys: ApiKeyRepository
    resolver: KeyResolver
    services: ApiServices
