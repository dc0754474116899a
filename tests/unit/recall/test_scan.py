"""`recall.scan`: the int8 scan's bound holds, and the two passes find the exact top k."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from recall.scan import Cosines, bound, quantize, query_levels, shelf


def _unit_rows(rng: np.random.Generator, n: int, d: int, positive: bool = False) -> np.ndarray:
    x = rng.standard_normal((n, d))
    if positive:  # every product adds up: the sums' rounding errors cannot cancel
        x = np.abs(x)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _cosines(rows: np.ndarray, q: np.ndarray, block: int) -> Cosines:
    blocks, codes, scales, errors = [], [], [], []
    for lo in range(0, rows.shape[0], block):
        part = np.zeros((block, rows.shape[1]), dtype=np.float32)
        part[: min(block, rows.shape[0] - lo)] = rows[lo : lo + block]
        c, s, e = quantize(part)
        blocks.append(part)
        codes.append(c)
        scales.append(s)
        errors.append(e)
    return Cosines(shelf(blocks), codes, scales, errors, block, rows.shape[0], q)


@pytest.mark.parametrize("positive", [False, True])
def test_the_scanned_cosine_is_within_its_bound_of_the_exact_one(positive: bool) -> None:
    rng = np.random.default_rng(11)
    rows = _unit_rows(rng, 3000, 384, positive)
    q = _unit_rows(rng, 1, 384, positive)[0]
    cos = _cosines(rows, q, block=1024)
    exact = cos.exact(np.arange(3000)).astype(np.float64)
    low = cos.low.astype(np.float64) - cos.absolute
    high = low + cos.width + 2 * cos.absolute
    assert (low <= exact).all()
    assert (exact <= high).all()
    scanned = (low + high) / 2
    assert np.abs(scanned - exact).max() > (high - low).max() / 200  # the scan is coarse
    _, _, q_error = quantize(q[None, :], query_levels(384))
    assert q_error[0] > 0  # the query's codes lose something too, and the bound covers it
    _, absolute = bound(q, float(q_error[0]))
    assert absolute == cos.absolute
    truth = rows.astype(np.float64) @ q.astype(np.float64)
    np.testing.assert_allclose(exact, truth, rtol=0, atol=1e-6)


@pytest.mark.parametrize("d", [384, 1536, 4096])
def test_the_integer_scan_cannot_overflow_at_any_dimension(d: int) -> None:
    """Every code at its largest, same signs: the scan's int32 sum at its largest (a query with
    32767 levels would pass int32 from 517 dimensions)."""
    rows = np.full((4, d), 1 / np.sqrt(d), dtype=np.float32)
    rows[1] *= -1
    q = rows[0].copy()
    cos = _cosines(rows, q, block=4)
    low = cos.low.astype(np.float64) - cos.absolute
    high = low + cos.width + 2 * cos.absolute
    exact = cos.exact(np.arange(4)).astype(np.float64)
    assert (low <= exact).all()
    assert (exact <= high).all()
    assert low[0] > 0.99
    assert high[1] < -0.99
    assert d * 127 * query_levels(d) < 2**31


def test_an_exact_cosine_does_not_depend_on_the_rows_computed_with_it() -> None:
    rng = np.random.default_rng(3)
    rows = _unit_rows(rng, 2000, 64)
    cos = _cosines(rows, _unit_rows(rng, 1, 64)[0], block=256)
    every = cos.exact(np.arange(2000))
    for _ in range(30):
        some = rng.choice(2000, size=int(rng.integers(1, 300)), replace=False)
        assert (cos.exact(some) == every[some]).all()


def test_contenders_hold_the_exact_top_k_and_every_tie_with_the_kth() -> None:
    rng = np.random.default_rng(5)
    rows = _unit_rows(rng, 5000, 96)
    rows[100] = rows[200] = rows[300]  # three rows tie exactly
    q = rows[300] * 0.6 + _unit_rows(rng, 1, 96)[0] * 0.4
    q = (q / np.linalg.norm(q)).astype(np.float32)
    cos = _cosines(rows, q, block=512)
    eligible = np.flatnonzero(rng.random(5000) < 0.8)
    eligible = np.union1d(eligible, [100, 200, 300])
    exact = cos.exact(eligible)
    for k in (1, 2, 10, 50):
        kth = np.sort(exact)[::-1][k - 1]
        must = set(eligible[exact >= kth].tolist())
        rows_kept, cosine = cos.contenders(eligible, k)
        assert must <= set(rows_kept.tolist())
        assert rows_kept.size < eligible.size // 4  # the scan did prune
        assert (cosine == cos.exact(rows_kept)).all()
    assert cos.contenders(eligible, 0)[0].size == eligible.size


def test_a_zero_row_quantizes_to_nothing() -> None:
    codes, scale, error = quantize(np.zeros((2, 8), dtype=np.float32))
    assert not codes.any()
    assert not scale.any()
    assert not error.any()


def test_warm_compiles_what_a_search_after_the_first_runs() -> None:
    """`warm` leaves nothing to compile for a later search: the typed list's `len`, which a
    search calls to extend the shelf it holds, compiles on first use in each process (~0.2 s)."""
    script = (
        "from numba.typed import typedlist\n"
        "from recall import scan\n"
        "scan.warm()\n"
        "print(len(typedlist._length.signatures))\n"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.split()[-1] == "1"
