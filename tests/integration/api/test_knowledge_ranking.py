"""Knowledge items compete with turns on one scale: found by embedding, scored like turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graph.kinds import ItemKind
from graph.models import Correction, Fact, Turn
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.recall import RecallRepository
from graph.repositories.turns import TurnRepository
from recall.config import RankingSection
from recall.ranking import FULLTEXT, VECTOR
from recall.retrieval import RetrievalService
from tests.shared_embedder import shared_local_embedder

T0 = datetime(2026, 3, 1, tzinfo=UTC)
CHATTER = [
    "Let me open the settings page first.",
    "The build finished in two minutes.",
    "I renamed the helper to parse_rows.",
    "Ok, the dashboard loads again.",
]


async def _seed(db) -> None:
    emb = shared_local_embedder()
    turns = [
        Turn(
            id=f"trn_k_{i}",
            project="alpha",
            session_id="ses_k",
            ordinal=i,
            role="user",
            text=t,
            token_estimate=len(t) // 4 + 1,
            valid_from=T0 + timedelta(minutes=i),
            embedding=v,
        )
        for i, (t, v) in enumerate(zip(CHATTER, await emb.embed(CHATTER), strict=True))
    ]
    await TurnRepository(db).upsert_many(turns)
    rule = "Use pnpm instead of npm."
    [v] = await emb.embed([rule])
    await CorrectionRepository(db).upsert_many(
        [
            Correction(
                id="cor_pnpm",
                project="alpha",
                corrected_behaviour="use pnpm",
                rule_text=rule,
                status="rule",
                confidence=0.9,
                reinforcement=5.0,
                valid_from=T0,
                last_seen=datetime.now(UTC),  # a rule in use: its weight has not decayed
                embedding=v,
            ),
            Correction(  # same meaning, other project: never seen from alpha
                id="cor_beta",
                project="beta",
                corrected_behaviour="use pnpm",
                rule_text=rule,
                valid_from=T0,
                embedding=v,
            ),
        ]
    )


async def _decoy_rule(db, query_vector) -> None:
    """A rule unrelated to pnpm whose embedding is the query's own: the nearest one to it."""
    await CorrectionRepository(db).upsert_many(
        [
            Correction(
                id="cor_other",
                project="alpha",
                corrected_behaviour="write tests first",
                rule_text="Write the tests first.",
                valid_from=T0,
                embedding=query_vector,
            )
        ]
    )


async def test_a_correction_sharing_no_word_with_the_query_is_found_by_embedding(graph_db) -> None:
    await _seed(graph_db)
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), RankingSection())
    res = await svc.context(
        "which javascript package manager does this repository want",
        ("alpha",),
        limit=3,
        token_budget=None,
    )
    kinds = [r.candidate.kind for r in res.items]
    assert ItemKind.CORRECTION in kinds
    [cor] = [r for r in res.items if r.candidate.kind is ItemKind.CORRECTION]
    assert cor.candidate.id == "cor_pnpm"
    assert cor.candidate.ranks == {VECTOR: 1}
    # its cosine similarity sits on the turns' scale, and it is closer than any chatter turn
    turn_sims = [r.candidate.scores[VECTOR] for r in res.items if r.candidate.kind is ItemKind.TURN]
    assert cor.candidate.scores[VECTOR] > max(turn_sims)
    assert "vector_score" in cor.why
    assert res.items[0].candidate.id == "cor_pnpm"


async def test_knowledge_text_gets_a_bm25_score_like_turns(graph_db) -> None:
    await _seed(graph_db)
    svc = RetrievalService(RecallRepository(graph_db), None, RankingSection())
    res = await svc.context("pnpm", ("alpha",), limit=5, token_budget=None)
    [cor] = [r for r in res.items if r.candidate.id == "cor_pnpm"]
    assert cor.candidate.ranks == {FULLTEXT: 1}
    assert cor.candidate.scores[FULLTEXT] > 0
    assert all(r.candidate.id != "cor_beta" for r in res.items)


async def test_a_knowledge_item_found_only_by_fulltext_still_gets_its_cosine(graph_db) -> None:
    await _seed(graph_db)
    emb = shared_local_embedder()
    [q] = await emb.embed(["pnpm"])
    # The vector search (1 candidate) finds the decoy, so the pnpm rule comes from the fulltext
    # search alone.
    await _decoy_rule(graph_db, q)
    svc = RetrievalService(RecallRepository(graph_db), emb, RankingSection(knowledge_candidates=1))
    res = await svc.context("pnpm", ("alpha",), limit=10, token_budget=None)
    by_id = {r.candidate.id: r.candidate for r in res.items}
    assert by_id["cor_other"].ranks == {VECTOR: 1}
    assert by_id["cor_pnpm"].ranks == {FULLTEXT: 1}
    [rule] = await emb.embed(["Use pnpm instead of npm."])
    assert by_id["cor_pnpm"].scores[VECTOR] == pytest.approx(float(rule @ q), abs=1e-4)


async def test_a_knowledge_item_reached_only_through_its_turn_gets_its_cosine(graph_db) -> None:
    await _seed(graph_db)
    emb = shared_local_embedder()
    query = "where is the parse_rows helper"
    [q] = await emb.embed([query])
    # The vector search (1 candidate) finds the decoy; no rule shares a word with the query.
    await _decoy_rule(graph_db, q)
    await CorrectionRepository(graph_db).link_sources([("cor_pnpm", "trn_k_2")])  # learnt there
    # the relevance gate off: what is checked here is the cosine it carries, not whether it is
    # relevant enough to serve (it is not: pnpm has nothing to do with a helper's place)
    ranking = RankingSection(knowledge_candidates=1, knowledge_min_similarity=-1)
    svc = RetrievalService(RecallRepository(graph_db), emb, ranking)
    res = await svc.context(query, ("alpha",), limit=10, token_budget=None)
    by_id = {r.candidate.id: r.candidate for r in res.items}
    pnpm = by_id["cor_pnpm"]
    assert pnpm.ranks == {}  # in neither search's list: it came with its turn
    assert pnpm.turn_ids == ("trn_k_2",)
    [rule] = await emb.embed(["Use pnpm instead of npm."])
    assert pnpm.scores[VECTOR] == pytest.approx(float(rule @ q), abs=1e-4)


async def test_a_turn_whose_fact_ended_ranks_below_the_turn_that_replaced_it(graph_db) -> None:
    """What a turn said has been superseded: as of now it yields to the current one; as of a
    time when it held, it does not."""
    emb = shared_local_embedder()
    said = [
        "The orders service stores everything in the MySQL orders database.",
        "The orders service stores everything in the Postgres orders database now.",
    ]
    vecs = await emb.embed(said)
    await TurnRepository(graph_db).upsert_many(
        [
            Turn(
                id=f"trn_db_{i}",
                project="alpha",
                session_id=f"ses_db_{i}",
                ordinal=0,
                role="user",
                text=t,
                token_estimate=len(t) // 4 + 1,
                valid_from=T0 + timedelta(days=30 * i),
                embedding=v,
            )
            for i, (t, v) in enumerate(zip(said, vecs, strict=True))
        ]
    )
    facts = FactRepository(graph_db)
    await facts.upsert_many(
        [
            Fact(
                id=f"fct_db_{i}",
                project="alpha",
                subject="orders database",
                predicate="uses",
                object=obj,
                statement=f"orders database uses {obj}",
                valid_from=T0 + timedelta(days=30 * i),
                valid_to=T0 + timedelta(days=30) if i == 0 else None,
            )
            for i, obj in enumerate(("MySQL", "Postgres"))
        ]
    )
    await facts.link_sources([("fct_db_0", "trn_db_0"), ("fct_db_1", "trn_db_1")])
    svc = RetrievalService(RecallRepository(graph_db), emb, RankingSection())
    query = "Which database do the orders service store everything in?"
    now = await svc.context(query, ("alpha",), limit=10, token_budget=None)
    ranked = {r.candidate.id: r for r in now.items}
    assert ranked["trn_db_0"].why.get("superseded") == RankingSection().superseded_factor
    assert "superseded" not in ranked["trn_db_1"].why
    ids = [r.candidate.id for r in now.items]
    assert ids.index("trn_db_1") < ids.index("trn_db_0")
    back = await svc.context(
        query,
        ("alpha",),
        limit=10,
        token_budget=None,
        as_of=int((T0 + timedelta(days=10)).timestamp() * 1000),
    )
    assert all("superseded" not in r.why for r in back.items)
