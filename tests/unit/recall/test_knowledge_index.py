"""The knowledge index's word search scores as `recall.lexical.bm25` scores the same texts."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from core.timeutil import OPEN
from graph.kinds import ItemKind
from graph.repositories.clocks import KnowledgeClock
from graph.repositories.recall import KnowledgeHit, KnowledgeTimes
from recall.knowledge_index import Bm25Stats, ProjectKnowledge
from recall.lexical import bm25, tokenize

_TEXT = "the deploy deploys deployed database postgres web app staging cache a of to is it"
_WORDS = _TEXT.split(" ")
_KINDS = (ItemKind.LESSON, ItemKind.CORRECTION, ItemKind.FACT, ItemKind.TOPIC)


def _index(seed: int, n: int = 120) -> tuple[ProjectKnowledge, dict[str, tuple[int, int | None]]]:
    rnd = random.Random(seed)
    hits, times, spans = [], {}, {}
    for i in range(n):
        text = " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(0, 14)))
        start = rnd.randint(0, 100)
        end = rnd.choice([None, start + rnd.randint(1, 50)])
        hid = f"k{n - 1 - i:03d}"  # ids in reverse row order: ties break by id, not row
        kind = _KINDS[i % len(_KINDS)]
        hits.append(
            KnowledgeHit(kind, hid, "p", text, 0.0, 0.5, 1.0, None, None, None, None, None,
                         start, end, (), None)
        )  # fmt: skip
        times[hid] = KnowledgeTimes(hid, start, OPEN if end is None else end, (), (), 0, OPEN, None)
        spans[hid] = (start, end)
    return ProjectKnowledge("p", KnowledgeClock(1, 1), hits, times), spans


def _holds(span: tuple[int, int | None], at: int) -> bool:
    start, end = span
    return start <= at and (end is None or end > at)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("avgdl", [7.5, 0.0])
def test_word_search_scores_equal_bm25_over_the_live_matching_texts(
    seed: int, avgdl: float
) -> None:
    held, spans = _index(seed)
    stats = Bm25Stats(n_docs=500, avgdl=avgdl, k1=1.2, b=0.75)
    rnd = random.Random(seed)
    for _ in range(20):
        words = rnd.sample(_WORDS, rnd.randint(1, 4))
        as_of = rnd.randint(0, 160)
        terms = {t for w in words for t in tokenize(w)}
        live = {
            h.id: h.text
            for h in held.hits
            if _holds(spans[h.id], as_of) and terms & set(tokenize(h.text))
        }
        expected = bm25(words, live, n_docs=500, avgdl=avgdl, k1=1.2, b=0.75)
        got = held.fulltext(words, k=10_000, as_of=as_of, known_at=OPEN - 1, stats=stats)
        assert {h.id: h.score for h in got} == expected  # equal floats, not approximately
        for kind in _KINDS:
            mine = [(h.score, h.id) for h in got if h.kind is kind]
            assert mine == sorted(mine, key=lambda x: (-x[0], x[1]))
        by_id = {h.id: h for h in held.hits}  # a hit is the held item with its score and end
        best = held.fulltext(words, k=2, as_of=as_of, known_at=OPEN - 1, stats=stats)
        for kind in _KINDS:  # the two best of each kind, equal scores (same texts) by id
            top = sorted((-s, i) for i, s in expected.items() if by_id[i].kind is kind)[:2]
            assert [(h.score, h.id) for h in best if h.kind is kind] == [(-s, i) for s, i in top]
        for h in got:
            assert h == replace(by_id[h.id], score=h.score, valid_to=spans[h.id][1])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("avgdl", [7.5, 0.0])
def test_a_pool_of_held_items_scores_as_bm25_scores_their_texts(seed: int, avgdl: float) -> None:
    """`bm25_of`: any held items, the engine's frequencies `df` or not, float for float."""
    held, _ = _index(seed)
    stats = Bm25Stats(n_docs=300, avgdl=avgdl, k1=1.2, b=0.75)
    rnd = random.Random(seed)
    for _ in range(20):
        pool = {h.id: h.text for h in rnd.sample(held.hits, rnd.randint(0, 40))}
        words = rnd.sample(_WORDS, rnd.randint(1, 4))
        df = {w: rnd.randint(0, 60) for w in rnd.sample(words, rnd.randint(0, len(words)))}
        expected = bm25(
            words, pool, n_docs=stats.n_docs, avgdl=avgdl, k1=stats.k1, b=stats.b, df=df
        )
        assert held.bm25_of(pool, words, df=df, stats=stats) == expected


def test_a_pool_with_an_item_not_held_as_given_is_left_to_the_caller() -> None:
    held, _ = _index(1)
    stats = Bm25Stats(n_docs=300, avgdl=7.5, k1=1.2, b=0.75)
    first = held.hits[0]
    assert held.bm25_of({"elsewhere": "deploy"}, ["deploy"], df={}, stats=stats) is None
    changed = {first.id: first.text + " deploy"}
    assert held.bm25_of(changed, ["deploy"], df={}, stats=stats) is None
