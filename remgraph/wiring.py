"""The composition root's wiring: which ingest hooks run, and what the API gets for its ports.

`api/` never imports `ingest/` or `consolidate/`; it depends on the Protocols in `api/ports.py`,
which `IngestService` and `RemService` fit structurally. This module is where they meet, and
where mypy checks the fit.
"""

from __future__ import annotations

from collections.abc import Sequence

from ai.embed import Embedder, make_embedder
from api.services import ApiServices
from consolidate.service import RemService
from graph.db import GraphDB
from ingest.backlog import backlog_status, drain_backlog
from ingest.config import IngestSettings
from ingest.extract.service import ExtractionHook
from ingest.pipeline import PostSessionHook
from ingest.service import IngestService
from remgraph.settings import Settings


def extraction_hooks(
    db: GraphDB, settings: IngestSettings, embedder: Embedder | None = None
) -> Sequence[PostSessionHook]:
    """Post-session hooks of an ingest run: knowledge extraction (offline, or LLM if configured)."""
    del db  # the hook receives the graph per call
    return [ExtractionHook(settings, embedder=embedder)]


async def drain_embedding_backlog(db: GraphDB) -> None:
    """`remgraph worker`'s cycle hook: embed what `ingest --no-wait-embeddings` left, if any.

    The model loads only when there is a backlog; another drain holding the lock is left alone.
    """
    if not any((await backlog_status(db)).values()):
        return
    settings = IngestSettings()
    if not _WORKER_EMBEDDER:
        _WORKER_EMBEDDER.append(make_embedder(settings.embedding))  # loaded once per worker
    await drain_backlog(db, settings, _WORKER_EMBEDDER[0], wait=False, renice=True)


_WORKER_EMBEDDER: list[Embedder] = []


def lazy_api_services(settings: Settings) -> ApiServices:
    """Ports built once the API has opened the graph itself (MCP over stdio)."""
    return ApiServices(
        make_ingestor=lambda db, emb: IngestService(
            db, settings, embedder=emb, hooks=extraction_hooks(db, settings, emb)
        ),
        make_consolidator=lambda db, emb: RemService(db, settings),
    )


def api_services(db: GraphDB, settings: Settings, embedder: Embedder | None = None) -> ApiServices:
    """The API's ports wired to the real ingest pipeline and REM cycle on an open graph."""
    emb = embedder or make_embedder(settings.embedding)
    return ApiServices(
        ingestor=IngestService(
            db, settings, embedder=emb, hooks=extraction_hooks(db, settings, emb)
        ),
        consolidator=RemService(db, settings),
        embedder=emb,
        db=db,
    )
