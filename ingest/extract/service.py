"""Entry points: the post-session ingest hook and `extract_session` for stored sessions.

The composition root registers an `ExtractionHook` with the ingest pipeline (its `__call__`
matches `ingest.pipeline.PostSessionHook`) and calls `await hook.finish()` after the run, which
recomputes topic weights and writes one project snapshot per touched project.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from ai.embed import Embedder, make_embedder
from ai.llm import LLMClient, LLMError
from graph.db import GraphDB
from graph.repositories.sessions import SessionRepository
from ingest.config import IngestSettings
from ingest.extract.apply import KnowledgeWriter
from ingest.extract.backlog import extract_or_fall_back, queue_extraction, stored_session_input
from ingest.extract.base import Extractor
from ingest.extract.models import ExtractionReport, SessionInput, TurnInput
from ingest.extract.offline import OfflineExtractor
from ingest.models import ParsedSession
from ingest.writer import session_id as make_session_id
from ingest.writer import turn_id as make_turn_id

__all__ = [
    "ExtractionHook",
    "extract_session",
    "extract_stored",
    "make_extractor",
    "session_input_from_parsed",
]

log = logging.getLogger(__name__)


def make_extractor(
    settings: IngestSettings,
    *,
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
) -> Extractor:
    """The LLM extractor when enabled and an endpoint is configured, else the offline one.

    `embedder`: the service's, which the offline extractor's act head reads with when it is
    the head's model (so the process loads it once).
    """
    ex = settings.extract
    if ex.use_llm and (llm is not None or settings.llm.enabled):
        from ingest.extract.llm import LLMExtractor  # deferred: only with an LLM configured

        return LLMExtractor(llm or LLMClient(settings.llm), ex)
    return OfflineExtractor(
        max_topics=ex.max_topics_per_session,
        acts=ex.offline_model == "acts",
        embedder=embedder,
    )


def session_input_from_parsed(parsed: ParsedSession, turn_ids: Sequence[str] = ()) -> SessionInput:
    """Build the extractor's input from a parsed session (ids computed like the writer does).

    Args:
        parsed: the parsed session (possibly only an appended tail).
        turn_ids: ids the writer stored; when given, only those turns are extracted.
    """
    wanted = set(turn_ids)
    turns = []
    for t in parsed.turns:
        tid = make_turn_id(parsed.project, parsed.key, t.key)
        if wanted and tid not in wanted:
            continue
        turns.append(
            TurnInput(
                id=tid,
                ordinal=t.ordinal,
                role=t.role,
                text=t.text,
                timestamp=t.timestamp,
                speaker=t.speaker,
                tool_name=t.tool_name,
                tool_ok=t.tool_ok,
            )
        )
    return SessionInput(
        id=make_session_id(parsed.project, parsed.key),
        project=parsed.project,
        turns=tuple(turns),
        title=parsed.title,
        source=parsed.source,
    )


class ExtractionHook:
    """Post-session hook for the ingest pipeline: extract knowledge from newly written turns.

    Args:
        settings: ingest settings (its `extract`, `llm`, `topics` and `corrections` sections).
        embedder: shared embedder (the pipeline's, so its cache is reused); built when omitted.
        extractor: override the extractor (tests, benchmarks).
    """

    def __init__(
        self,
        settings: IngestSettings,
        *,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = settings
        self.extract_settings = settings.extract
        self._embedder = embedder
        self._extractor = extractor
        self._writers: dict[int, KnowledgeWriter] = {}
        self._inline_runs = 0
        self.queued = 0
        """Sessions whose extraction this hook queued in the backlog."""
        self.report = ExtractionReport()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.embedding)
        return self._embedder

    @property
    def extractor(self) -> Extractor:
        if self._extractor is None:
            self._extractor = make_extractor(self.settings, embedder=self.embedder)
        return self._extractor

    def _writer(self, db: GraphDB) -> KnowledgeWriter:
        w = self._writers.get(id(db))
        if w is None:
            w = KnowledgeWriter(
                db,
                self.embedder,
                self.extract_settings,
                topic_rules=self.settings.topics,
                correction_rules=self.settings.corrections,
            )
            self._writers[id(db)] = w
        return w

    @property
    def deferred(self) -> bool:
        """Extraction is queued in the embedding backlog and run by its drain (`ingest.backlog`)."""
        ing = self.settings.ingest
        return ing.defer_embeddings and ing.embed

    async def __call__(self, db: GraphDB, parsed: ParsedSession, turn_ids: list[str]) -> None:
        """Extract (or queue the extraction of) the turns written now plus any not yet extracted.

        The session's watermark (`extracted_through`, written after its knowledge or its queued
        extraction) says how far extraction got, so a re-run after a crash extracts exactly what
        one clean run would.
        """
        if not self.extract_settings.enabled or not parsed.turns:
            return
        sid = make_session_id(parsed.project, parsed.key)
        sessions = SessionRepository(db)
        mark = (await sessions.extracted_through([sid]))[sid]
        last = max(t.ordinal for t in parsed.turns)
        wanted = set(turn_ids) | {
            make_turn_id(parsed.project, parsed.key, t.key)
            for t in parsed.turns
            if t.ordinal > mark
        }
        if not wanted:
            return  # nothing new was written: a re-run extracts nothing
        if self.deferred:
            await queue_extraction(db, parsed.project, sid, sorted(wanted))
            self.queued += 1
        else:
            await self.run(db, session_input_from_parsed(parsed, sorted(wanted)))
        if last > mark:
            await sessions.set_extracted_through([(sid, last)])

    async def run(self, db: GraphDB, session: SessionInput) -> ExtractionReport:
        """Extract from one session and apply the result now; adds to `self.report`."""
        t0 = time.perf_counter()
        result, fallback_note = await extract_or_fall_back(
            self.extractor, session, max_topics=self.extract_settings.max_topics_per_session
        )
        rep = await self._writer(db).apply(result)
        self._inline_runs += 1
        rep.turns = len(session.turns)
        rep.seconds = time.perf_counter() - t0
        rep.issues += [f"{session.project}/{session.id}: {i}" for i in result.issues]
        if fallback_note:
            rep.fallbacks.append(fallback_note)
        self.report.merge(rep)
        return rep

    def absorb(self, report: ExtractionReport) -> None:
        """Add what the backlog's queued extractions (and due weights and snapshots) did."""
        self.report.merge(report)

    async def finish(self, db: GraphDB | None = None) -> ExtractionReport:
        """End of run: topic weights and project snapshots. Returns the run's full report."""
        if not self._inline_runs:
            return self.report  # weights and snapshots are due in the backlog (`ingest.backlog`)
        writers = [self._writer(db)] if db is not None else list(self._writers.values())
        t0 = time.perf_counter()
        for w in writers:
            self.report.merge(await w.finish())
        self.report.seconds += time.perf_counter() - t0
        llm = getattr(self.extractor, "llm", None) if self._extractor is not None else None
        if llm is not None:
            self.report.llm_usage = llm.ledger.as_dict()
        if self._extractor is not None:
            self.report.extractor = self._extractor.name
        return self.report

    def ingest_summary(self) -> dict[str, Any]:
        """What the ingest summary shows of extraction: extractor, ledger, fallbacks, issues.

        The ledger is read from the client itself, so calls of sessions that fell back count.
        """
        llm = getattr(self._extractor, "llm", None)
        return self.report.summary() | {
            "extractor": self.report.extractor or self.extractor.name,
            "queued": self.queued,
            "llm_usage": llm.ledger.as_dict() if llm is not None else self.report.llm_usage,
        }


async def extract_stored(
    db: GraphDB,
    settings: IngestSettings,
    *,
    projects: Sequence[str] | None = None,
    session_ids: Sequence[str] = (),
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
) -> ExtractionReport:
    """Re-run extraction over stored sessions (e.g. after `ingest --no-extract`), oldest first.

    Sessions already counted are no-ops, so this is safe to repeat.

    Args:
        db: the graph.
        settings: graph settings.
        projects: every session of these projects (None with no `session_ids`: all projects).
        session_ids: these sessions only.
        embedder: shared embedder.
        extractor: override the extractor.
    """
    repo = SessionRepository(db)
    ids = list(session_ids)
    if not ids:
        after = ""
        while True:
            page = await repo.list(projects=projects, after=after, limit=500)
            if not page:
                break
            ids.extend(s.id for s in page)
            after = page[-1].id
    sessions = [s for s in await repo.get_many(ids) if s is not None]
    sessions.sort(key=lambda s: (s.started_at or s.valid_from, s.id))
    hook = ExtractionHook(settings, embedder=embedder, extractor=extractor)
    marks = SessionRepository(db)
    for s in sessions:
        try:
            inp = await stored_session_input(db, s.id)
            await hook.run(db, inp)
            if inp.turns:
                await marks.set_extracted_through([(s.id, max(t.ordinal for t in inp.turns))])
        except (LLMError, ValueError) as e:
            hook.report.failures.append(f"{s.project}/{s.id}: {type(e).__name__}: {e}")
    return await hook.finish(db)


async def extract_session(
    db: GraphDB,
    settings: IngestSettings,
    session_id: str,
    *,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
    finish: bool = True,
) -> ExtractionReport:
    """Extract knowledge from a session already stored in the graph.

    Args:
        db: the graph.
        settings: graph settings (`extract`, `llm`, `embedding` sections).
        session_id: the stored session's id.
        embedder: shared embedder; built from settings when omitted.
        extractor: override the extractor.
        finish: also recompute topic weights and snapshot the project.

    Raises:
        NotFoundError: no such session.
    """
    inp = await stored_session_input(db, session_id)
    hook = ExtractionHook(settings, embedder=embedder, extractor=extractor)
    await hook.run(db, inp)
    if finish:
        return await hook.finish(db)
    return hook.report
