"""`ProjectTurns` alone: vector blocks line up with rows, as-of filtering, replaced texts."""

from __future__ import annotations

import numpy as np

from core.timeutil import OPEN
from graph.repositories.clocks import TurnClock
from graph.repositories.recall import IndexedTurn
from recall.candidates import turn_columns
from recall.scan import quantize
from recall.turn_index import Bm25Params, ProjectTurns

CLOCK = TurnClock(epoch=1, seq=1)
PARAMS = Bm25Params(1.2, 0.75)


def _turn(i: int, text: str, embedding: list[float] | None = None, **kw) -> IndexedTurn:
    fields = {
        "id": f"t{i}",
        "session_id": "s",
        "ordinal": i,
        "speaker": "user",
        "tokens": 3,
        "valid_from": 100 + i,
        "valid_to": OPEN,
        "recorded_at": 100 + i,
        "expired_at": OPEN,
        "vector_pending": embedding is None,
        "text": text,
        "embedding": embedding,
    }
    fields.update(kw)
    return IndexedTurn(**fields)


def _unit(i: int) -> list[float]:
    v = np.zeros(4)
    v[i % 4] = 1.0
    return v.tolist()


def test_vectors_written_later_land_in_blocks_that_cover_every_row() -> None:
    index = ProjectTurns("p", block=2)
    index.apply([_turn(i, f"turn number {i}") for i in range(5)], {}, CLOCK)
    assert index.similarities(np.ones(4, dtype=np.float32)) is None  # no vector yet
    # the first vector arrives for a row in the first block, the next for the last row
    index.apply(
        [_turn(0, "turn number 0", _unit(0)), _turn(4, "turn number 4", _unit(2))], {}, CLOCK
    )
    sims = index.similarities(np.asarray(_unit(2), dtype=np.float32))
    assert sims is not None
    assert len(sims) == 5
    hits = index.vector(sims, as_of=1000, known_at=1000, k=2)
    assert [h.id for h in hits] == ["t4", "t0"]
    # rows appended after the dimension is known get blocks too
    index.apply([_turn(9, "turn number 9", _unit(1))], {}, CLOCK)
    sims = index.similarities(np.asarray(_unit(1), dtype=np.float32))
    assert sims is not None
    assert len(sims) == 6
    assert index.vector(sims, as_of=1000, known_at=1000, k=1)[0].id == "t9"


def test_as_of_and_known_at_filter_like_the_engine_queries() -> None:
    index = ProjectTurns("p")
    index.apply(
        [
            _turn(0, "deploy the api"),
            _turn(1, "deploy again", valid_to=150),  # ended at 150
            _turn(2, "deploy later", recorded_at=300),  # recorded at 300
        ],
        {},
        CLOCK,
    )

    def found(as_of: int, known_at: int) -> set[str]:
        hits = index.fulltext(["deploy"], as_of=as_of, known_at=known_at, k=10, params=PARAMS)
        return {h.id for h in hits}

    assert found(120, 400) == {"t0", "t1", "t2"}
    assert found(200, 400) == {"t0", "t2"}
    assert found(200, 200) == {"t0"}
    assert found(100, 400) == {"t0"}


def test_a_new_text_replaces_the_old_row() -> None:
    index = ProjectTurns("p")
    index.apply([_turn(0, "lunch was a sandwich"), _turn(1, "lunch again")], {}, CLOCK)
    index.apply([_turn(0, "dinner was pasta")], {}, CLOCK)
    assert len(index) == 2
    assert index.document_frequency(["lunch", "dinner"]) == {"lunch": 1, "dinner": 1}
    hits = index.fulltext(["lunch", "dinner"], as_of=1000, known_at=1000, k=10, params=PARAMS)
    assert sorted((h.id, h.text) for h in hits) == [
        ("t0", "dinner was pasta"),
        ("t1", "lunch again"),
    ]
    (fact,) = index.facts(["t0"], [], 0, as_of=1000, known_at=1000, sims=None, scored=())
    assert fact.ordinal == 0
    assert index.texts_of(["t0"]) == {"t0": "dinner was pasta"}


def test_columns_hold_what_the_facts_and_texts_of_the_same_turns_hold() -> None:
    """The index builds ranking's columns directly; the facts route gives the same columns."""
    index = ProjectTurns("p")
    index.apply(
        [
            _turn(0, "deploy the api", _unit(0)),
            _turn(1, "deploy again", _unit(1), tokens=0, speaker="Mel"),
            _turn(2, "later that day", None, valid_to=150),  # ended at 150
            _turn(3, "no vector yet", None),
            _turn(4, "deploy it", _unit(2), session_id="other", ordinal=0),
        ],
        {},
        CLOCK,
    )
    sims = index.similarities(np.asarray([0.6, 0.8, 0.0, 0.0], dtype=np.float32))
    ranks = {"t0": {"fulltext": 1}, "t4": {"fulltext": 2, "vector": 3}, "t1": {"vector": 1}}
    bm25_of = {"t0": 2.5, "t4": 1.0}
    cosine_of = {"t1": 0.8}
    args = (["t0", "t4", "t1"], ["t0"], 3)
    times = {"as_of": 160, "known_at": 1000}
    got = index.columns(
        *args, **times, sims=sims, live=None, ranks=ranks, bm25_of=bm25_of, cosine_of=cosine_of
    )
    rows = index.facts(*args, **times, sims=sims, scored=cosine_of)
    want = turn_columns(rows, ranks, bm25_of, index.texts_of(r.id for r in rows), 3, cosine_of)
    assert got.ids == want.ids == ["t0", "t4", "t1", "t3"]  # t2 ended at 150
    for i in range(len(got)):
        assert got.candidate(i) == want.candidate(i)
    assert got.candidate(1).neighbours == ()  # another session
    assert got.candidate(0).neighbours == ("t1", "t3")
    assert got.candidate(2).scores == {"vector": 0.8}  # the vector search's score stands


def test_equal_scores_rank_by_id_and_the_k_th_keeps_its_ties_in_order() -> None:
    index = ProjectTurns("p", block=2)
    # t3 and t1 tie above t2 and t0, which tie too; ids break each tie whatever the row order
    index.apply(
        [
            _turn(3, "alpha alpha", _unit(0)),
            _turn(2, "alpha beta", _unit(1)),
            _turn(1, "alpha alpha", _unit(0)),
            _turn(0, "alpha beta", _unit(1)),
        ],
        {},
        CLOCK,
    )
    sims = index.similarities(np.asarray([0.8, 0.6, 0.0, 0.0], dtype=np.float32))
    near = index.vector(sims, as_of=1000, known_at=1000, k=3)
    assert [(h.id, round(h.score, 6)) for h in near] == [("t1", 0.8), ("t3", 0.8), ("t0", 0.6)]
    assert all(isinstance(h.score, float) for h in near)
    text = index.fulltext(["alpha"], as_of=1000, known_at=1000, k=0, params=PARAMS)
    assert [h.id for h in text] == ["t1", "t3", "t0", "t2"]  # "alpha" twice scores higher
    assert [h.text for h in text] == ["alpha alpha", "alpha alpha", "alpha beta", "alpha beta"]
    assert text[0].score == text[1].score > text[2].score == text[3].score > 0


def test_the_vector_search_matches_a_brute_force_one_after_rewrites() -> None:
    rng = np.random.default_rng(8)
    vecs = rng.standard_normal((300, 32))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    index = ProjectTurns("p", block=64)
    index.apply([_turn(i, f"turn {i}", vecs[i].tolist()) for i in range(300)], {}, CLOCK)
    q = rng.standard_normal(32)
    q = (q / np.linalg.norm(q)).astype(np.float32)

    def brute() -> list[str]:
        scored = sorted((-float(vecs[i] @ q), f"t{i}") for i in range(300))
        return [t for _, t in scored[:10]]

    def found() -> list[str]:
        return [h.id for h in index.vector(index.similarities(q), as_of=1000, known_at=1000, k=10)]

    # the codes are made as the rows are taken in, not left to the first search
    assert index.unquantized == []
    assert np.array_equal(np.concatenate(index.codes)[:300], quantize(vecs)[0])
    assert found() == brute()
    # the best row moves away and a far one becomes the nearest: the codes follow the writes
    best = int(found()[0][1:])
    far = int(np.argmin(vecs @ q))
    vecs[best], vecs[far] = -q, q
    rewritten = [_turn(i, f"turn {i}", vecs[i].tolist()) for i in (best, far)]
    index.apply(rewritten, {}, CLOCK)
    assert index.unquantized == []
    assert found() == brute()
    assert found()[0] == f"t{far}"
