"""Findings come back when their evidence changes; completed todos are never pending."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from consolidate.config import ConsolidateSettings
from consolidate.jobs.extraction import Proposals, propose_from_facts
from consolidate.models import JobContext
from graph.db import GraphDB
from graph.repositories.findings import FindingRepository
from graph.rows import OpenFact

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _ctx(db: GraphDB, settings: ConsolidateSettings) -> JobContext:
    return JobContext(db, settings, "p", "run1", NOW, logging.getLogger("t"), "extraction")


async def test_a_skipped_finding_reopens_when_its_evidence_changes(graph_db, rem_settings):
    ctx = _ctx(graph_db, rem_settings)
    repo = FindingRepository(graph_db)

    def finding(evidence: str, target: str = "les_a"):
        return ctx.finding(
            "stale", "stale lesson", "detail", [target], "archive", evidence=evidence
        )

    first = finding("usage=0|old trick")
    await repo.upsert_many([first, finding("usage=0|x", "les_b")])
    await repo.set_status(first.id, "skipped", now_ms=1)
    assert await repo.upsert_many([finding("usage=0|old trick")]) == {first.id: "skipped"}
    assert await repo.upsert_many([finding("usage=3|old trick")]) == {first.id: "open"}
    (f,) = await repo.get_many([first.id])
    assert f is not None
    assert f.evidence == "usage=3|old trick"
    # A decided finding (rejected) never reopens, whatever the evidence.
    other = finding("usage=0|x", "les_b")
    await repo.set_status(other.id, "rejected", now_ms=1)
    assert await repo.upsert_many([finding("usage=9|x", "les_b")]) == {other.id: "rejected"}


async def test_completed_todos_are_not_pending(graph_db, rem_settings):
    ctx = _ctx(graph_db, rem_settings)
    facts = [
        OpenFact("fct_open", "todo", "TODO (pending): ship it", "ship it", "pending", 0),
        OpenFact("fct_done", "todo", "TODO (completed): docs", "docs", "completed", 0),
        OpenFact("fct_text", "todo", "TODO: add a migration", "p", "add a migration", 0),
    ]
    starts = list(range(1, 10))  # nine later sessions
    out = Proposals()
    propose_from_facts(ctx, facts, starts, _NoLessons(), out)  # type: ignore[arg-type]
    pending = {t for f in out.findings if f.kind == "pending_todo" for t in f.target_ids}
    assert pending == {"fct_open", "fct_text"}


class _NoLessons:
    def covers_decision(self, f: OpenFact) -> bool:
        return False
