"""The engine contract for the queries `context` and `search` run (`RecallRepository`).

The same production queries on every available engine (`any_db`): turn fulltext and vector search,
the `NEXT` expansion with the fields ranking reads, the statistics BM25 needs, and knowledge
search by text, by embedding, by similarity and through the turns an item came from. Every query
is scoped: a row of another project never comes back.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.timeutil import to_ms
from graph.cypher import Q
from graph.db import GraphDB
from graph.kinds import ItemKind
from graph.models import (
    Correction,
    Fact,
    Lesson,
    Primer,
    ReferenceLayer,
    Session,
    Topic,
    Turn,
)
from graph.repositories import SessionRepository, TurnRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.lessons import LessonRepository
from graph.repositories.primers import PrimerRepository
from graph.repositories.recall import KnowledgeHit, RecallRepository, TurnFacts, TurnStats
from graph.repositories.reference_layers import ReferenceLayerRepository
from graph.repositories.topics import TopicRepository
from recall.config import RankingSection
from recall.retrieval import RetrievalService

T0 = datetime(2020, 1, 1, tzinfo=UTC)
REC = datetime(2020, 2, 1, tzinfo=UTC)
NOW = to_ms(datetime(2021, 1, 1, tzinfo=UTC))
DIM = 384
CAP = 2**31 - 1


def h(n: float) -> datetime:
    return T0 + timedelta(hours=n)


def vec(*head: float) -> list[float]:
    """A 384-d vector: the given leading components, then zeros."""
    return [*head, *([0.0] * (DIM - len(head)))]


def turn(sid: str, ordinal: int, text: str, project: str = "p1", **kw: Any) -> Turn:
    base: dict[str, Any] = {
        "id": f"{sid}-t{ordinal}",
        "project": project,
        "session_id": sid,
        "ordinal": ordinal,
        "role": "user" if ordinal % 2 == 0 else "assistant",
        "text": text,
        "valid_from": h(ordinal),
        "recorded_at": REC,
    }
    return Turn(**(base | kw))


SCORE_TOL = 1e-4
"""How close an index's similarity score is to the exact cosine, on both engines: FalkorDB keeps
float32 vectors, and Neo4j's vector indexes are unquantized (migration 0017; quantized ones score
0.8016 for 0.8; see `bench/results/neo4j.md`)."""


async def test_vector_indexes_are_not_quantized(any_db: GraphDB) -> None:
    rows = await any_db.read(Q("admin.vector_index_options"))
    assert len(rows) == 5  # turns, topics, lessons, corrections, facts
    assert [r["name"] for r in rows if r["quantized"]] == []


# --- turns: fulltext and vector search ------------------------------------------------------


async def test_turn_fulltext(any_db: GraphDB) -> None:
    turns, recall = TurnRepository(any_db), RecallRepository(any_db)
    await turns.upsert_many(
        [
            turn("s1", 0, "we moved the graph database to FalkorDB"),
            turn("s1", 1, "lunch was pasta"),
            turn("s2", 0, "graph database tuning notes", project="p2"),
            turn("s1", 2, "an old graph database remark"),
        ]
    )
    await turns.close("s1-t2", at=h(3), now=REC + timedelta(days=1))

    async def search(text: str, projects: tuple[str, ...] = ("*",), **kw: Any) -> list[Any]:
        args = {"k": 10, "cap": CAP, "as_of": NOW, "known_at": NOW} | kw
        return await recall.turn_fulltext(text, projects, **args)

    hits = await search("graph database?")
    assert {x.id for x in hits} == {"s1-t0", "s2-t0"}
    assert all(x.score > 0 for x in hits)
    assert {x.id: x.text for x in hits} == {
        "s1-t0": "we moved the graph database to FalkorDB",
        "s2-t0": "graph database tuning notes",
    }
    assert [x.id for x in await search("database", ("p2",))] == ["s2-t0"]
    assert await search("graph", as_of=to_ms(h(-1))) == []
    assert [x.id for x in await search("pasta", k=1)] == ["s1-t1"]
    assert await search("   ") == []
    assert await search("graph", ()) == []  # an empty scope asks nothing
    # before the close was recorded, the closed turn was found
    old = await search("remark", known_at=to_ms(REC + timedelta(hours=1)), as_of=to_ms(h(2)))
    assert [x.id for x in old] == ["s1-t2"]


async def test_turn_vector_scores_are_similarities(any_db: GraphDB) -> None:
    turns, recall = TurnRepository(any_db), RecallRepository(any_db)
    tol = SCORE_TOL
    ts = [
        turn("s1", 0, "x", embedding=tuple(vec(1.0, 0.0))),
        turn("s1", 1, "y", embedding=tuple(vec(0.8, 0.6))),
        turn("s1", 2, "z", embedding=tuple(vec(0.0, 1.0))),
        turn("s2", 0, "w", project="p2", embedding=tuple(vec(1.0, 0.01))),
    ]
    await turns.upsert_many(ts)

    async def nearest(projects: tuple[str, ...], k: int) -> list[Any]:
        return await recall.turn_vector(
            vec(1.0, 0.0), projects, k=k, k_search=k * 4, as_of=NOW, known_at=NOW
        )

    hits = await nearest(("p1",), 2)
    assert [x.id for x in hits] == ["s1-t0", "s1-t1"]
    assert hits[0].score == pytest.approx(1.0, abs=tol)
    assert hits[1].score == pytest.approx(0.8, abs=tol)
    assert hits[0].text is None
    everywhere = await nearest(("*",), 4)
    assert [x.id for x in everywhere] == ["s1-t0", "s2-t0", "s1-t1", "s1-t2"]
    assert everywhere[-1].score == pytest.approx(0.0, abs=tol)

    # set_embeddings replaces a vector in place
    assert await turns.set_embeddings([("s1-t2", vec(1.0, 0.0))]) == 1
    hits = await nearest(("p1",), 2)
    # both at cosine 1: a tie goes by id
    assert [x.id for x in hits] == ["s1-t0", "s1-t2"]
    assert [x.score for x in hits] == pytest.approx([1.0, 1.0], abs=tol)
    assert await nearest(("p1",), 0) == []
    assert await recall.turn_vector(None, ("p1",), k=2, k_search=8, as_of=NOW, known_at=NOW) == []


async def test_a_small_project_among_large_ones_gets_its_own_nearest(any_db: GraphDB) -> None:
    turns, recall = TurnRepository(any_db), RecallRepository(any_db)
    crowd = [turn("big", i, "c", embedding=tuple(vec(1.0, 0.001 * i))) for i in range(60)]
    few = [turn("small", i, "f", project="p2", embedding=tuple(vec(0.5, 1.0))) for i in range(2)]
    few.append(turn("small", 2, "g", project="p2"))  # not embedded yet: no score to give
    # Ended before NOW: an as-of read at NOW does not see it, however near.
    ended = turn("small", 3, "h", project="p2", embedding=tuple(vec(1.0, 0.0)), valid_to=h(4))
    await turns.upsert_many([*crowd, *few, ended])

    # The index's 8 nearest overall are all crowd turns: the scope filter leaves nothing.
    assert (
        await recall.turn_vector(vec(1.0, 0.0), ("p2",), k=2, k_search=8, as_of=NOW, known_at=NOW)
        == []
    )
    # Scoring each turn of the scope finds them, nearest first, on the same scale.
    exact = await recall.turn_vector_exact(vec(1.0, 0.0), ("p2",), k=5, as_of=NOW, known_at=NOW)
    assert exact[0].score == pytest.approx(0.5 / (1.25**0.5), abs=SCORE_TOL)
    assert [x.id for x in exact] == ["small-t0", "small-t1"]  # not embedded, ended: left out
    then = await recall.turn_vector_exact(
        vec(1.0, 0.0), ("p2",), k=1, as_of=to_ms(h(3.5)), known_at=NOW
    )
    assert [x.id for x in then] == ["small-t3"]
    # Scope and time filters hold: another project, or an as-of before the turns, finds none.
    assert (
        await recall.turn_vector_exact(vec(1.0, 0.0), ("p9",), k=5, as_of=NOW, known_at=NOW) == []
    )
    early = to_ms(h(-1))
    assert (
        await recall.turn_vector_exact(vec(1.0, 0.0), ("p2",), k=5, as_of=early, known_at=NOW) == []
    )
    assert await recall.turn_vector_exact(None, ("p2",), k=5, as_of=NOW, known_at=NOW) == []
    assert (
        await recall.turn_vector_exact(vec(1.0, 0.0), ("p2",), k=0, as_of=NOW, known_at=NOW) == []
    )

    # `context`'s vector search plans by the scope's share: the small project gets its turns.
    svc = RetrievalService(recall, None, RankingSection(vector_exact_max_turns=100))
    hits = await svc.vector(vec(1.0, 0.0), ("p2",), k=2, as_of=NOW, known_at=NOW)
    assert [x.id for x in hits] == ["small-t0", "small-t1"]
    # With the exact scan switched off it is the index's nearest overall again (and none in p2).
    svc = RetrievalService(recall, None, RankingSection(vector_exact_max_turns=0))
    assert await svc.vector(vec(1.0, 0.0), ("p2",), k=2, as_of=NOW, known_at=NOW) == []


# --- turns: expansion, texts, statistics ------------------------------------------------------


@pytest.fixture
async def dialogue(any_db: GraphDB) -> GraphDB:
    """Session s1 (p1, quality 0.8): six turns along NEXT, four by Ann and two by Bob; s2 (p2): one
    turn by Cid."""
    sessions, turns = SessionRepository(any_db), TurnRepository(any_db)
    ss = [
        Session(id="s1", project="p1", source="generic", title="s1", valid_from=h(0), quality=0.8),
        Session(id="s2", project="p2", source="generic", title="s2", valid_from=h(0)),
    ]
    texts = ["hello there", "the deploy failed", "retry the deploy", "it works", "ok", "bye"]
    ts = [
        turn(
            "s1",
            i,
            t,
            speaker="Bob" if i % 3 == 1 else "Ann",
            token_estimate=i + 1,
            source_key=f"D1:{i}",
            embedding=tuple(vec(1.0, 0.1 * i)),
        )
        for i, t in enumerate(texts)
    ]
    ts.append(turn("s2", 0, "deploy elsewhere", project="p2", speaker="Cid", source_key="D9:0"))
    await sessions.upsert_many(ss)
    await turns.upsert_many(ts)
    await sessions.link_turns(ts)
    return any_db


async def test_turns_fetch_expands_along_next_within_the_session_and_scope(
    dialogue: GraphDB,
) -> None:
    recall = RecallRepository(dialogue)
    got = await recall.turns_fetch(
        ["s1-t2", "s2-t0"], ("p1",), top=["s1-t2"], window=1, vector=vec(1.0, 0.0)
    )
    by_id = {r.id: r for r in got}
    assert set(by_id) == {"s1-t1", "s1-t2", "s1-t3"}  # s2-t0 is out of scope
    t2 = by_id["s1-t2"]
    assert dataclasses.replace(t2, quality=None, similarity=None) == TurnFacts(
        id="s1-t2",
        project="p1",
        session_id="s1",
        ordinal=2,
        speaker="Ann",
        tokens=3,
        valid_from=to_ms(h(2)),
        valid_to=None,
        quality=None,
        similarity=None,
    )
    assert t2.quality == pytest.approx(0.8)
    assert t2.similarity == pytest.approx(1.0 / (1.0 + 0.04) ** 0.5, abs=1e-4)
    assert by_id["s1-t1"].speaker == "Bob"
    # turns the vector search scored already: the engine leaves their cosine out, not the others'
    skip = await recall.turns_fetch(
        ["s1-t2"], ("p1",), top=["s1-t2"], window=1, vector=vec(1.0, 0.0), scored={"s1-t2"}
    )
    assert {r.id: r.similarity for r in skip} == {
        "s1-t1": by_id["s1-t1"].similarity,
        "s1-t2": None,
        "s1-t3": by_id["s1-t3"].similarity,
    }
    assert by_id["s1-t1"].similarity is not None
    # window 0 or no heads: the hits only; no vector: no similarity
    only = await recall.turns_fetch(["s1-t2"], ("p1",), top=[], window=1, vector=None)
    assert [(r.id, r.similarity) for r in only] == [("s1-t2", None)]
    wide = await recall.turns_fetch(["s1-t0"], ("*",), top=["s1-t0"], window=2, vector=None)
    assert sorted(r.id for r in wide) == ["s1-t0", "s1-t1", "s1-t2"]
    assert await recall.turns_fetch([], ("p1",), top=[], window=1, vector=None) == []


async def test_texts_speakers_keys_and_statistics_stay_in_scope(dialogue: GraphDB) -> None:
    recall = RecallRepository(dialogue)
    texts = await recall.turn_texts(["s1-t1", "s2-t0", "nope"], ("p1",))
    assert texts == {"s1-t1": "the deploy failed"}
    assert await recall.speakers(("p1",)) == ("Ann", "Bob")  # most turns first
    assert set(await recall.speakers(("*",))) == {"Ann", "Bob", "Cid"}
    assert await recall.speakers(("p2",)) == ("Cid",)
    assert await recall.turn_keys(("p2",)) == {"D9:0": "s2-t0"}
    assert len(await recall.turn_keys(("*",))) == 7
    stats = await recall.turn_stats(("p1",))
    chars = [len(t) for t in ["hello there", "the deploy failed", "retry the deploy"]]
    chars += [len(t) for t in ["it works", "ok", "bye"]]
    assert stats.turns == 6
    assert stats.avg_chars == pytest.approx(sum(chars) / 6)
    assert await recall.turn_stats(("nowhere",)) == TurnStats(0, 0.0)


async def test_term_frequencies_count_the_whole_index(dialogue: GraphDB) -> None:
    recall = RecallRepository(dialogue)
    df = await recall.turn_term_df(["deploy", "bye", "absent", "?!"])
    assert df == {"deploy": 3, "bye": 1, "absent": 0, "?!": 0}
    assert await recall.turn_term_df([]) == {}


# --- knowledge ----------------------------------------------------------------------------------


@pytest.fixture
async def knowledge(dialogue: GraphDB) -> GraphDB:
    """One item of each kind in p1 (lesson and fact from s1-t1, correction from s1-t2, a topic
    mentioned by s1-t3), a fact in p2, and a fact closed before `NOW`."""
    db = dialogue
    lessons, corrections = LessonRepository(db), CorrectionRepository(db)
    facts, topics = FactRepository(db), TopicRepository(db)
    await lessons.upsert_many(
        [
            Lesson(
                id="les_1",
                project="p1",
                title="Deploys",
                content="retry a failed deploy once",
                weight=2.0,
                effectiveness=0.5,
                valid_from=h(1),
                recorded_at=REC,
                embedding=tuple(vec(0.0, 1.0)),
            )
        ]
    )
    await corrections.upsert_many(
        [
            Correction(
                id="cor_1",
                project="p1",
                corrected_behaviour="use pnpm",
                rule_text="use pnpm for every deploy",
                status="rule",
                confidence=0.9,
                reinforcement=3.0,
                last_seen=h(2),
                valid_from=h(2),
                recorded_at=REC,
                embedding=tuple(vec(0.0, 0.0, 1.0)),
            )
        ]
    )
    await facts.upsert_many(
        [
            Fact(
                id="fct_1",
                project="p1",
                statement="the deploy target is falkordb",
                confidence=0.7,
                valid_from=h(1),
                recorded_at=REC,
                embedding=tuple(vec(0.0, 0.0, 0.0, 1.0)),
            ),
            Fact(
                id="fct_2",
                project="p2",
                statement="the deploy target is neo4j",
                valid_from=h(1),
                recorded_at=REC,
                embedding=tuple(vec(0.0, 0.0, 0.0, 1.0)),
            ),
            Fact(
                id="fct_old",
                project="p1",
                statement="the deploy target was redis",
                valid_from=h(0),
                valid_to=h(1),
                recorded_at=REC,
            ),
        ]
    )
    await topics.upsert_many(
        [
            Topic(
                id="top_1",
                projects=("p1",),
                title="deploy pipeline",
                weight=3.0,
                phase="active",
                last_seen=h(3),
                valid_from=h(0),
                recorded_at=REC,
                embedding=tuple(vec(0.0, 0.0, 0.0, 0.0, 1.0)),
            )
        ]
    )
    await ReferenceLayerRepository(db).upsert_many(
        [
            ReferenceLayer(
                id="ref_1",
                project="p1",
                topic_id="top_1",
                title="Deploy",
                text="how a deploy runs",
                valid_from=h(0),
                recorded_at=REC,
            )
        ]
    )
    await PrimerRepository(db).upsert_many(
        [
            Primer(
                id="pri_1",
                project="p1",
                period="weekly",
                period_key="2020-W01",
                text="this week: deploy fixes",
                valid_from=h(0),
                recorded_at=REC,
            )
        ]
    )
    await lessons.link_sources([("les_1", "s1-t1")])
    await facts.link_sources([("fct_1", "s1-t1"), ("fct_2", "s2-t0")])
    await corrections.link_sources([("cor_1", "s1-t2")])
    await topics.link_mentions([("s1-t3", "top_1"), ("s2-t0", "top_1")])
    return db


def _by_id(hits: list[KnowledgeHit]) -> dict[str, KnowledgeHit]:
    return {x.id: x for x in hits}


async def test_knowledge_fulltext_finds_every_kind_with_its_columns(knowledge: GraphDB) -> None:
    recall = RecallRepository(knowledge)
    hits = await recall.knowledge_fulltext("deploy", ("p1",), k=5, cap=CAP, as_of=NOW, known_at=NOW)
    got = _by_id(hits)
    assert set(got) == {"les_1", "cor_1", "fct_1", "top_1", "ref_1", "pri_1"}
    assert [x.score for x in hits] == sorted((x.score for x in hits), reverse=True)
    assert all(x.score >= 0 for x in hits)  # one matching item per index can score 0 (idf)
    assert got["les_1"] == KnowledgeHit(
        kind=ItemKind.LESSON,
        id="les_1",
        project="p1",
        text="Deploys: retry a failed deploy once",
        score=got["les_1"].score,
        confidence=None,
        weight=2.0,
        effectiveness=0.5,
        reinforcement=None,
        last_seen=None,
        half_life_days=None,
        status=None,
        valid_from=to_ms(h(1)),
        valid_to=None,
        turn_ids=("s1-t1",),
        subject=None,
    )
    cor = got["cor_1"]
    assert (cor.kind, cor.text, cor.status, cor.turn_ids) == (
        ItemKind.CORRECTION,
        "use pnpm for every deploy",
        "rule",
        ("s1-t2",),
    )
    assert (cor.confidence, cor.reinforcement, cor.half_life_days) == (0.9, 3.0, 30.0)
    assert cor.last_seen == to_ms(h(2))
    assert (got["fct_1"].kind, got["fct_1"].confidence) == (ItemKind.FACT, 0.7)
    top = got["top_1"]
    # a topic's project is its first; its turns are those of the scope that mention it
    assert (top.kind, top.project, top.text, top.status, top.weight, top.turn_ids) == (
        ItemKind.TOPIC,
        "p1",
        "deploy pipeline",
        "active",
        3.0,
        ("s1-t3",),
    )
    assert (got["ref_1"].text, got["ref_1"].turn_ids) == ("Deploy: how a deploy runs", ())
    assert (got["pri_1"].kind, got["pri_1"].status) == (ItemKind.PRIMER, "weekly")
    # scope, event time and the engine query syntax
    everywhere = await recall.knowledge_fulltext(
        "deploy", ("*",), k=5, cap=CAP, as_of=NOW, known_at=NOW
    )
    assert {"fct_2", "fct_1"} <= {x.id for x in everywhere}
    assert "fct_old" not in {x.id for x in everywhere}
    then = await recall.knowledge_fulltext(
        "redis", ("p1",), k=5, cap=CAP, as_of=to_ms(h(0.5)), known_at=NOW
    )
    assert [x.id for x in then] == ["fct_old"]
    assert then[0].valid_to == to_ms(h(1))
    assert (
        await recall.knowledge_fulltext("?!", ("p1",), k=5, cap=CAP, as_of=NOW, known_at=NOW) == []
    )
    one = await recall.knowledge_fulltext("deploy", ("*",), k=1, cap=CAP, as_of=NOW, known_at=NOW)
    # k per kind: one of the two facts
    assert sorted(x.kind for x in one) == sorted(k for k in ItemKind if k is not ItemKind.TURN)


async def test_knowledge_vector_and_similarity_score_cosines(knowledge: GraphDB) -> None:
    recall = RecallRepository(knowledge)
    tol = SCORE_TOL
    q = vec(0.0, 0.6, 0.8)  # cos 0.6 to the lesson, 0.8 to the correction, 0 to the rest
    hits = await recall.knowledge_vector(q, ("p1",), k=1, k_search=8, as_of=NOW, known_at=NOW)
    got = _by_id(hits)
    assert set(got) == {"les_1", "cor_1", "fct_1", "top_1"}  # one per vector index
    assert got["les_1"].score == pytest.approx(0.6, abs=tol)
    assert got["cor_1"].score == pytest.approx(0.8, abs=tol)
    assert got["fct_1"].score == pytest.approx(0.0, abs=tol)
    assert got["les_1"].turn_ids == ("s1-t1",)
    assert got["top_1"].turn_ids == ("s1-t3",)
    other = await recall.knowledge_vector(q, ("p2",), k=1, k_search=8, as_of=NOW, known_at=NOW)
    assert [x.id for x in other] == ["fct_2"]
    sims = await recall.knowledge_similarity(
        ["les_1", "cor_1", "fct_2", "ref_1", "top_1"], ("p1",), q
    )
    # fct_2 is out of scope, the reference layer has no embedding
    assert sims.keys() == {"les_1", "cor_1", "top_1"}
    assert sims["les_1"] == pytest.approx(0.6, abs=1e-4)
    assert sims["cor_1"] == pytest.approx(0.8, abs=1e-4)
    assert sims["top_1"] == pytest.approx(0.0, abs=1e-4)
    assert await recall.knowledge_similarity(["les_1"], ("p1",), None) == {}


async def test_knowledge_of_turns_follows_provenance_in_scope(knowledge: GraphDB) -> None:
    recall = RecallRepository(knowledge)
    found = await recall.knowledge_of_turns(
        ["s1-t1", "s1-t2", "s2-t0"], ("p1",), as_of=NOW, known_at=NOW
    )
    hits = found.live
    assert sorted((x.id, x.kind, x.turn_ids) for x in hits) == [
        ("cor_1", ItemKind.CORRECTION, ("s1-t2",)),
        ("fct_1", ItemKind.FACT, ("s1-t1",)),
        ("les_1", ItemKind.LESSON, ("s1-t1",)),
    ]
    lesson = next(x for x in hits if x.id == "les_1")
    assert (lesson.text, lesson.weight, lesson.effectiveness) == (
        "Deploys: retry a failed deploy once",
        2.0,
        0.5,
    )
    before = await recall.knowledge_of_turns(["s1-t1"], ("p1",), as_of=to_ms(h(0.5)), known_at=NOW)
    assert before.live == []  # the lesson and the fact hold from h(1)
    assert before.superseded == frozenset()  # not yet started is not ended
