"""The knowledge clock and the rules kept in process (`recall.knowledge_cache`), on both engines.

A kept read is served only while a new read would return the same rows: a write that may change
knowledge moves the clock (the registry puts the bump into it), a write that cannot does not, and
a rule that starts or stops holding later is served from that instant without any write.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from core.timeutil import now_ms
from graph.models import Correction, Turn
from graph.purge import purge_project
from graph.repositories.clocks import ClockRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.recall import RecallRepository
from graph.repositories.turns import TurnRepository
from recall.config import RankingSection
from recall.retrieval import RetrievalService
from tests.shared_embedder import shared_local_embedder

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _turn(i: int, text: str) -> Turn:
    return Turn(
        id=f"trn_k_{i}",
        project="kc",
        session_id="ses_k",
        ordinal=i,
        role="user",
        text=text,
        token_estimate=len(text) // 4 + 1,
        valid_from=T0 + timedelta(minutes=i),
    )


async def _rules(*rules: Correction) -> list[Correction]:
    """`rules` with their embeddings (a rule is ranked on its similarity to the query too)."""
    vecs = await shared_local_embedder().embed([r.rule_text or "" for r in rules])
    return [r.model_copy(update={"embedding": list(v)}) for r, v in zip(rules, vecs, strict=True)]


def _rule(cid: str, text: str, **kw) -> Correction:
    return Correction(
        id=cid,
        project="kc",
        rule_text=text,
        corrected_behaviour=text,
        status="rule",
        confidence=0.8,
        valid_from=kw.pop("valid_from", T0),
        last_seen=datetime.now(UTC),
        **kw,
    )


async def _opening(svc: RetrievalService, query: str) -> list[str]:
    out = await svc.context(query, ("kc",), limit=6, token_budget=None)
    return [r.candidate.id for r in out.items if r.why.get("rule_first")]


async def test_the_clock_moves_on_knowledge_writes_only(graph_db) -> None:
    clocks = ClockRepository(graph_db)
    before = (await clocks.read()).knowledge
    await TurnRepository(graph_db).upsert_many([_turn(0, "Deploy the billing service.")])
    assert (await clocks.read()).knowledge == before  # a turn write is `knowledge: untouched`
    await CorrectionRepository(graph_db).upsert_many([_rule("cor_a", "Use pnpm, not npm.")])
    first = (await clocks.read()).knowledge
    assert first is not None
    assert before is None or first.seq > before.seq
    await CorrectionRepository(graph_db).close_many([("cor_a", now_ms())], now=now_ms())
    moved = (await clocks.read()).knowledge
    assert moved is not None
    assert (moved.epoch, moved.seq) == (first.epoch, first.seq + 1)
    await purge_project(graph_db, "kc")  # autocommit: the adapter bumps after it
    purged = (await clocks.read()).knowledge
    assert purged is not None
    assert purged.seq > moved.seq


async def test_a_kept_rule_is_dropped_as_soon_as_it_is_closed(graph_db) -> None:
    await TurnRepository(graph_db).upsert_many(
        [_turn(0, "Install the dependencies for the web app."), _turn(1, "The build passes.")]
    )
    await CorrectionRepository(graph_db).upsert_many(
        await _rules(
            _rule("cor_pnpm", "Always use pnpm, never npm."), _rule("cor_tabs", "Indent with tabs.")
        )
    )
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), RankingSection())
    assert set(await _opening(svc, "what are the rules here?")) == {"cor_pnpm", "cor_tabs"}
    assert svc.rules.hits == 0  # the first call under a clock reads the rules alone
    assert set(await _opening(svc, "what are the rules here?")) == {"cor_pnpm", "cor_tabs"}
    hits = svc.rules.hits  # the second kept them
    assert set(await _opening(svc, "any rules for the build?")) == {"cor_pnpm", "cor_tabs"}
    assert svc.rules.hits == hits + 1  # nothing written: served from the process
    await CorrectionRepository(graph_db).close_many([("cor_tabs", now_ms() - 1)], now=now_ms())
    assert await _opening(svc, "any rules for the build?") == ["cor_pnpm"]
    await CorrectionRepository(graph_db).upsert_many(
        await _rules(_rule("cor_yarn", "Never use yarn."))
    )
    assert set(await _opening(svc, "install the dependencies")) == {"cor_pnpm", "cor_yarn"}


async def test_a_rule_starts_and_ends_on_time_without_a_write(graph_db) -> None:
    await TurnRepository(graph_db).upsert_many([_turn(0, "Install the dependencies.")])
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), RankingSection())
    await svc.warm_up()
    now = datetime.now(UTC)
    await CorrectionRepository(graph_db).upsert_many(
        await _rules(
            _rule(
                "cor_now", "Run the linter before each commit.", valid_to=now + timedelta(seconds=8)
            ),
            # seconds apart, so the first reads end before one starts on a loaded machine
            _rule("cor_soon", "Use pnpm for every install.", valid_from=now + timedelta(seconds=4)),
        )
    )

    async def at(seconds: float) -> list[str]:
        wait = (now + timedelta(seconds=seconds) - datetime.now(UTC)).total_seconds()
        await asyncio.sleep(max(0.0, wait))
        return sorted(await _opening(svc, "what are my rules for installing the dependencies?"))

    assert await at(0) == ["cor_now"]
    assert await at(0) == ["cor_now"]
    hits = svc.rules.hits
    assert await at(0) == ["cor_now"]
    assert svc.rules.hits == hits + 1  # kept: nothing starts or ends before the next instant
    assert await at(4.2) == ["cor_now", "cor_soon"]  # started, no write in between
    assert await at(8.2) == ["cor_soon"]  # ended
    # a read at another time goes to the engine, whatever is kept
    past = await svc.context(
        "what are my rules for installing the dependencies?",
        ("kc",),
        limit=6,
        token_budget=None,
        as_of=int((now + timedelta(seconds=1)).timestamp() * 1000),
    )
    assert [r.candidate.id for r in past.items if r.why.get("rule_first")] == ["cor_now"]


async def test_serving_starts_the_clock_of_a_graph_written_without_it(graph_db) -> None:
    """A graph whose knowledge was written before the clock existed keeps nothing until a serving
    process makes the clock; one with a clock keeps it as it is."""
    await TurnRepository(graph_db).upsert_many([_turn(0, "Install the dependencies.")])
    clocks = ClockRepository(graph_db)
    before = (await clocks.read()).knowledge
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), RankingSection())
    await svc.warm_up()
    after = (await clocks.read()).knowledge
    assert after is not None
    assert before is None or after == before


async def test_serving_loads_the_knowledge_indexes_before_the_first_call(graph_db) -> None:
    """`warm_up` loads each project's knowledge index in the background, after the turn indexes,
    so a project's first call uses it rather than loading it (or reading the engine)."""
    await TurnRepository(graph_db).upsert_many([_turn(0, "Install the dependencies.")])
    await CorrectionRepository(graph_db).upsert_many(
        await _rules(_rule("cor_pnpm", "Always use pnpm, never npm."))
    )
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), RankingSection())
    assert svc.knowledge_index.status()["projects"] == 0
    await svc.warm_up()
    assert svc.knowledge_index.status()["warming"] is True
    await svc.knowledge_index.wait()
    status = svc.knowledge_index.status()
    assert status["warming"] is False
    assert (status["projects"], status["items"]) == (1, 1)
    clock = (await ClockRepository(graph_db).read()).knowledge
    held = await svc.knowledge_index.current(("kc",), clock)
    assert held is not None
    assert await _opening(svc, "install the dependencies") == ["cor_pnpm"]
    assert await svc.knowledge_index.current(("kc",), clock) is held  # used, not loaded again
    await svc.knowledge_index.stop()
    await svc.turn_index.stop()
