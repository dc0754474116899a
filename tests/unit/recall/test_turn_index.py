"""`ProjectTurns` alone: vector blocks line up with rows, as-of filtering, replaced texts."""

from __future__ import annotations

import numpy as np

from core.timeutil import OPEN
from graph.repositories.clocks import TurnClock
from graph.repositories.recall import IndexedTurn
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
    assert sims.shape == (5,)
    hits = index.vector(sims, as_of=1000, known_at=1000, k=2)
    assert [h.id for h in hits] == ["t4", "t0"]
    # rows appended after the dimension is known get blocks too
    index.apply([_turn(9, "turn number 9", _unit(1))], {}, CLOCK)
    sims = index.similarities(np.asarray(_unit(1), dtype=np.float32))
    assert sims is not None
    assert sims.shape == (6,)
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
