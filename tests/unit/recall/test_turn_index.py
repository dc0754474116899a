"""`ProjectTurns` alone: vector blocks line up with rows, as-of filtering, replaced texts."""

from __future__ import annotations

import numpy as np

from core.timeutil import OPEN
from graph.repositories.recall import IndexedTurn
from graph.repositories.turn_clock import TurnClock
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


def _unit_of(index: ProjectTurns, i: int) -> np.ndarray:
    unit = index.unit_query(np.asarray(_unit(i), dtype=np.float32))
    assert unit is not None
    return unit


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
    hits = index.nearest(_unit_of(index, 2), k=2, live=index.live(1000, 1000))
    assert [h.id for h in hits] == ["t4", "t0"]
    # rows appended after the dimension is known get blocks too
    index.apply([_turn(9, "turn number 9", _unit(1))], {}, CLOCK)
    sims = index.similarities(np.asarray(_unit(1), dtype=np.float32))
    assert sims is not None
    assert sims.shape == (6,)
    assert index.nearest(_unit_of(index, 1), k=1, live=index.live(1000, 1000))[0].id == "t9"


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
    (fact,) = index.facts(["t0"], [], 0, as_of=1000, known_at=1000, unit=None, scored=())
    assert fact.ordinal == 0
    assert index.texts_of(["t0"]) == {"t0": "dinner was pasta"}


def _clustered(n: int, dims: int, seed: int) -> np.ndarray:
    """Unit vectors in a few dozen clusters, shaped like sentence embeddings (not isotropic)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, dims))
    v = centres[rng.integers(0, 40, n)] + 0.8 * rng.standard_normal((n, dims))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _embedded(
    n: int, dims: int, *, coarse_min: int, rerank: int
) -> tuple[ProjectTurns, np.ndarray]:
    vecs = _clustered(n, dims, seed=7)
    index = ProjectTurns("p", block=512, coarse_min=coarse_min, rerank=rerank)
    index.apply([_turn(i, f"turn {i}", vecs[i].tolist()) for i in range(n)], {}, CLOCK)
    return index, vecs


def test_the_coarse_pass_finds_what_the_exact_scan_finds() -> None:
    n, dims = 3000, 192
    coarse, vecs = _embedded(n, dims, coarse_min=2000, rerank=300)
    exact, _ = _embedded(n, dims, coarse_min=0, rerank=300)
    assert coarse.basis is not None
    assert exact.basis is None
    live = coarse.live(10_000, 10_000)
    queries = _clustered(20, dims, seed=11)
    found = 0
    for q in queries:
        got = coarse.nearest(q.astype(np.float32), k=20, live=live)
        want = exact.nearest(q.astype(np.float32), k=20, live=live)
        # the scores are exact cosines either way
        for h in got:
            row = int(h.id[1:])
            assert abs(h.score - float(vecs[row] @ q)) < 1e-5
        found += len({h.id for h in got} & {h.id for h in want})
    assert found / (20 * len(queries)) >= 0.98


def test_vectors_after_the_fit_are_projected_and_found() -> None:
    n, dims = 600, 192
    index, _ = _embedded(n, dims, coarse_min=500, rerank=50)
    assert index.basis is not None
    target = _clustered(1, dims, seed=99)[0]
    index.apply([_turn(n + 1, "a late turn", target.tolist())], {}, CLOCK)
    live = index.live(10_000, 10_000)
    (best,) = index.nearest(target.astype(np.float32), k=1, live=live)
    assert best.id == f"t{n + 1}"
    assert abs(best.score - 1.0) < 1e-5
    # an as-of read before that turn was said does not see it
    before = index.live(100 + n, 10_000)
    assert index.nearest(target.astype(np.float32), k=1, live=before)[0].id != f"t{n + 1}"


def test_facts_carry_the_exact_cosine_of_neighbours_not_scored() -> None:
    index, vecs = _embedded(600, 192, coarse_min=500, rerank=50)
    q = vecs[10].astype(np.float32)
    facts = index.facts(["t10"], ["t10"], 2, as_of=10_000, known_at=10_000, unit=q, scored={"t10"})
    sims = {f.id: f.similarity for f in facts}
    assert sims["t10"] is None  # scored by the search already
    for i in (8, 9, 11, 12):
        assert abs(sims[f"t{i}"] - float(vecs[i] @ vecs[10])) < 1e-5
