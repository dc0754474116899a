"""The in-process turn index follows the graph exactly: writes, embeddings, retirements, purges."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import numpy as np

from core.timeutil import now_ms, to_ms
from graph.models import Session, Turn
from graph.purge import purge_project
from graph.repositories.clocks import ClockRepository
from graph.repositories.recall import RecallRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.turns import TurnRepository
from recall.config import RankingSection
from recall.lexical import bm25
from recall.retrieval import RetrievalService
from recall.turn_index import Bm25Params

T0 = datetime(2026, 3, 1, tzinfo=UTC)
DIM = 384


def _turn(project: str, i: int, text: str, *, session: str | None = None, **kw) -> Turn:
    return Turn(
        id=f"trn_{project}_{i}",
        project=project,
        session_id=session or f"ses_{project}",
        ordinal=i,
        role="user",
        text=text,
        token_estimate=len(text) // 4 + 1,
        valid_from=T0 + timedelta(minutes=i),
        **kw,
    )


def _unit(seed: int) -> list[float]:
    v = np.random.default_rng(seed).standard_normal(DIM)
    return (v / np.linalg.norm(v)).tolist()


TEXTS = [
    "we deploy the api with blue green releases",
    "the falkordb cluster needs a restart after each deploy",
    "lunch was a sandwich again",
    "release notes go to the changelog before the deploy",
    "the cat knocked the plant over",
]


async def _seed(db) -> None:
    await TurnRepository(db).upsert_many(
        [_turn("alpha", i, t) for i, t in enumerate(TEXTS)]
        + [_turn("beta", i, f"beta deploy {t}") for i, t in enumerate(TEXTS)]
    )


def _svc(db, **kw) -> RetrievalService:
    return RetrievalService(RecallRepository(db), None, RankingSection(**kw))


async def test_index_search_matches_bm25_and_stays_in_its_project(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    assert len(index) == len(TEXTS)
    now = now_ms()
    hits = index.fulltext(
        ["deploy", "restart"], as_of=now, known_at=now, k=10, params=Bm25Params(1.2, 0.75)
    )
    n, avgdl = index.stats()
    expected = bm25(
        ["deploy", "restart"],
        {f"trn_alpha_{i}": t for i, t in enumerate(TEXTS)},
        n_docs=n,
        avgdl=avgdl,
    )
    assert {h.id: round(h.score, 9) for h in hits} == {k: round(v, 9) for k, v in expected.items()}
    assert hits[0].id == "trn_alpha_1"  # both words
    assert all(h.id.startswith("trn_alpha_") for h in hits)
    assert await svc.turn_index.current(("alpha", "beta")) is None  # several projects: engine


async def test_a_turn_written_after_loading_is_found_at_once(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    first = await svc.context("kubernetes upgrade", ("alpha",), limit=5, token_budget=None)
    assert not first.items
    await TurnRepository(graph_db).upsert_many(
        [_turn("alpha", 9, "the kubernetes upgrade is planned for friday")]
    )
    out = await svc.context("kubernetes upgrade", ("alpha",), limit=5, token_budget=None)
    assert [r.candidate.id for r in out.items][:1] == ["trn_alpha_9"]
    assert out.items[0].candidate.text.startswith("the kubernetes upgrade")


async def test_retired_turns_leave_current_reads_and_stay_in_history(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    await svc.turn_index.current(("alpha",))  # loaded before the retirement
    before = now_ms()
    await asyncio.sleep(0.01)  # the retirement happens after `before`
    await TurnRepository(graph_db).close(["trn_alpha_1"])
    out = await svc.context("falkordb restart", ("alpha",), limit=5, token_budget=None)
    assert "trn_alpha_1" not in {r.candidate.id for r in out.items}
    then = await svc.context(
        "falkordb restart", ("alpha",), limit=5, token_budget=None, as_of=before, known_at=before
    )
    assert "trn_alpha_1" in {r.candidate.id for r in then.items}


async def test_as_of_reads_see_no_later_turn_nor_later_neighbour(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    as_of = to_ms(T0 + timedelta(minutes=1, seconds=30))  # turns 0 and 1 said by then
    out = await svc.context("deploy", ("alpha",), limit=10, token_budget=None, as_of=as_of)
    ids = {r.candidate.id for r in out.items}
    assert ids
    assert ids <= {"trn_alpha_0", "trn_alpha_1"}
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    now = now_ms()
    facts = index.facts(
        ["trn_alpha_1"], ["trn_alpha_1"], 2, as_of=as_of, known_at=now, sims=None, scored=()
    )
    assert {f.id for f in facts} == {"trn_alpha_0", "trn_alpha_1"}


async def test_embeddings_written_later_are_searched(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    now = now_ms()
    q = np.asarray(_unit(3), dtype=np.float32)
    assert index.vector(index.similarities(q), as_of=now, known_at=now, k=5) == []
    await TurnRepository(graph_db).set_embeddings(
        [(f"trn_alpha_{i}", _unit(i)) for i in range(len(TEXTS))]
    )
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    hits = index.vector(index.similarities(q), as_of=now_ms(), known_at=now_ms(), k=2)
    assert hits[0].id == "trn_alpha_3"
    assert abs(hits[0].score - 1.0) < 1e-5
    # the engine's exact search agrees on the order
    exact = await RecallRepository(graph_db).turn_vector_exact(
        q.tolist(), ("alpha",), k=2, as_of=now_ms(), known_at=now_ms()
    )
    assert [h.id for h in exact] == [h.id for h in hits]


async def test_session_quality_changes_reach_the_index(graph_db) -> None:
    await _seed(graph_db)
    sessions = SessionRepository(graph_db)
    session = Session(id="ses_alpha", project="alpha", started_at=T0, quality=0.2)
    await sessions.upsert_many([session])
    svc = _svc(graph_db)
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    now = now_ms()
    (fact,) = index.facts(["trn_alpha_0"], [], 0, as_of=now, known_at=now, sims=None, scored=())
    assert fact.quality == 0.2
    await sessions.upsert_many([session.model_copy(update={"quality": 0.9})])
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    (fact,) = index.facts(["trn_alpha_0"], [], 0, as_of=now, known_at=now, sims=None, scored=())
    assert fact.quality == 0.9


async def test_a_purged_project_is_gone_from_the_index(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    assert await svc.turn_index.current(("alpha",)) is not None
    await purge_project(graph_db, "alpha")
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    assert len(index) == 0
    out = await svc.context("deploy", ("alpha",), limit=5, token_budget=None)
    assert not out.items
    assert len(await svc.turn_index.current(("beta",)) or []) == len(TEXTS)


async def test_a_project_past_the_room_is_searched_by_the_engine(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db, turn_index_max_turns=3)
    assert await svc.turn_index.current(("alpha",)) is None
    out = await svc.context("falkordb restart", ("alpha",), limit=3, token_budget=None)
    assert out.items[0].candidate.id == "trn_alpha_1"
    off = _svc(graph_db, turn_index_max_turns=0)
    assert await off.turn_index.current(("alpha",)) is None


async def test_unchanged_rewrites_do_not_move_the_clock(graph_db) -> None:
    await _seed(graph_db)
    repo = ClockRepository(graph_db)
    clock = await repo.turn_clock()
    assert clock is not None
    written = await TurnRepository(graph_db).upsert_many([_turn("alpha", 0, TEXTS[0])])
    assert written == 0
    assert await repo.turn_clock() == clock
    assert await TurnRepository(graph_db).upsert_many([_turn("alpha", 0, "changed text")]) == 1
    moved = await repo.turn_clock()
    assert moved is not None
    assert moved.seq == clock.seq + 1
    assert moved.epoch == clock.epoch


async def test_warming_loads_every_project_in_the_background(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    await svc.warm_up()  # no embedder: only the indexes
    task = svc.turn_index._warm_task
    assert task is not None
    await task
    assert svc.turn_index.held() == 2 * len(TEXTS)
    index = await svc.turn_index.current(("beta",))
    assert index is not None
    assert len(index) == len(TEXTS)


async def test_a_changed_text_replaces_the_old_one_in_the_index(graph_db) -> None:
    await _seed(graph_db)
    svc = _svc(graph_db)
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    assert index.document_frequency(["lunch"]) == {"lunch": 1}
    await TurnRepository(graph_db).upsert_many([_turn("alpha", 2, "dinner was pasta")])
    index = await svc.turn_index.current(("alpha",))
    assert index is not None
    assert index.document_frequency(["lunch", "dinner"]) == {"lunch": 0, "dinner": 1}
    assert len(index) == len(TEXTS)
    now = now_ms()
    params = Bm25Params(1.2, 0.75)
    assert index.fulltext(["lunch"], as_of=now, known_at=now, k=5, params=params) == []
    (hit,) = index.fulltext(["dinner"], as_of=now, known_at=now, k=5, params=params)
    assert (hit.id, hit.text) == ("trn_alpha_2", "dinner was pasta")
