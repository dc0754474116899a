"""The turn index's cosine search in two passes: an int8 scan bounds every row, float32 settles.

Why: reading a project's float32 embeddings was the largest single cost of a `context` request
(25K turns x 384 floats, ~38 MB a query: 3.6-4.0 CPU-ms in service, memory-bound whatever the
kernel). Each row is also held as int8 codes with a scale, a quarter of the bytes; a compiled
loop scans them, and the exact float32 cosine is computed only for the rows that can still be
among the best and for the rows a caller reads (in process, the same 150 requests in 8
alternating rounds: 10.3 vs 11.9 CPU-ms a `context` request, identical results).

Exactness, not an approximation: a unit row `x` is held as codes `c = round(x / s)`, with
`s = max|x_i| / 127`, and the norm of what that loses, `e = ||x - s c||`; the query is held the
same way with int16 codes (`t k`, losing `q_e`, ~250 times less than a row). The scan is then an
integer dot product (int8 x int16 into int32, exact in any order; a 4,096-row block in 48 us
against 60 with each code converted to float32, measured on this project's 2-core machine), and
by Cauchy-Schwarz the scanned value `s t (c . k)` is within `e ||q|| + (1 + e) q_e` of `x . q`,
plus a few float32 roundings (`bound`). A row whose upper bound is below the k-th best lower
bound cannot be among the `k` best, so the exact top `k` (ties with the k-th included) is always
among the rows re-scored. The exact cosine is one function of the row and the query (a float32
sum in a fixed order, the same value whichever other rows are computed with it, unlike a BLAS
product, whose last bit depends on the matrix around the row).

The kernels are compiled by numba on first use (`warm` does it at a server's start; numba keeps
them in its cache beside this file, or in every process where it cannot write one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_LEVELS = 127
"""int8 codes run over -127..127 (symmetric: no code without a negation)."""
_INT32 = 2**31 - 1
_EPS = 2.0**-24
"""float32's unit roundoff."""


def quantize(rows: np.ndarray, levels: int = _LEVELS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, scale, error) per row of float32 `rows`; a zero row gets zeros.

    Codes run over `-levels..levels`: int8 for the rows (127), int16 for a query
    (`query_levels`). `error` is `||row - scale * codes||`, rounded up to a float32:
    `|row . q - scale * (codes . q)|` is at most `error * ||q||` (Cauchy-Schwarz).
    """
    x = np.asarray(rows, dtype=np.float64)
    scale = (np.abs(x).max(axis=1, initial=0.0) / levels).astype(np.float32)
    held = scale.astype(np.float64)
    safe = np.where(held > 0, held, 1.0)
    kind = np.int8 if levels <= _LEVELS else np.int16
    codes = np.clip(np.rint(x / safe[:, None]), -levels, levels).astype(kind)
    residual = np.linalg.norm(x - held[:, None] * codes, axis=1)
    held_error = residual.astype(np.float32)
    error = np.where(
        held_error < residual, np.nextafter(held_error, np.float32(np.inf)), held_error
    )
    return codes, scale, error


def query_levels(d: int) -> int:
    """The finest int16 codes for a `d`-dimensional query whose scan sum cannot pass int32.

    `sum |c_i k_i| <= d * 127 * levels`; 32767 up to 516 dimensions. A query's error is then
    ~250 times smaller than a row's, so the bound hardly widens.
    """
    return max(1, min(2**15 - 1, _INT32 // (d * _LEVELS)))


def _scan_py(
    codes: np.ndarray,
    scale: np.ndarray,
    error: np.ndarray,
    q_codes: np.ndarray,
    q_scale: float,
    per_error: float,
    low: np.ndarray,
    width: np.ndarray,
) -> None:
    """Per row, the scanned cosine less its bound (`low`) and twice the bound (`width`).

    The scanned cosine is `scale * q_scale * (codes . q_codes)`: an integer sum, exact in any
    order (`query_levels` keeps it inside int32); the bound is `error * per_error`.
    """
    n, d = codes.shape
    qs = np.float32(q_scale)
    for r in range(n):
        acc = np.int32(0)
        for i in range(d):
            acc += np.int32(codes[r, i]) * np.int32(q_codes[i])
        slack = error[r] * np.float32(per_error)
        # numba widens the sum to int64; taken back to int32 (exact: it fits), the loop runs
        # on 32-bit lanes, twice as many a vector
        low[r] = np.float32(np.int32(acc)) * (scale[r] * qs) - slack
        width[r] = slack + slack


def _dot_py(blocks: Any, at: np.ndarray, block: int, q: np.ndarray, out: np.ndarray) -> None:
    """out[j] = row at[j] . q in float32: eight running sums over the columns, in a fixed order.

    Row `r` is row `r % block` of `blocks[r // block]`.
    """
    d = q.shape[0]
    whole = d - d % 8
    for j in range(at.shape[0]):
        b = at[j] // block
        rows = blocks[b]
        r = at[j] - b * block
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.float32(0.0)
        for i in range(0, whole, 8):
            a0 += rows[r, i] * q[i]
            a1 += rows[r, i + 1] * q[i + 1]
            a2 += rows[r, i + 2] * q[i + 2]
            a3 += rows[r, i + 3] * q[i + 3]
            a4 += rows[r, i + 4] * q[i + 4]
            a5 += rows[r, i + 5] * q[i + 5]
            a6 += rows[r, i + 6] * q[i + 6]
            a7 += rows[r, i + 7] * q[i + 7]
        for i in range(whole, d):
            a0 += rows[r, i] * q[i]
        out[j] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


def shelf(blocks: Sequence[np.ndarray], held: Any = None) -> Any:
    """`blocks` as a list the kernels read (numba's typed list; the same buffers, not copies).

    `held`: the list made last time for the same blocks, extended rather than made again.
    """
    out = _numba().typed.List() if held is None else held
    for b in blocks[len(out) :]:
        out.append(b)
    return out


_KERNELS: dict[str, Callable[..., None]] = {}
_FIRST_USE = threading.Lock()
"""numba is imported and the kernels compiled by one thread at a time: two searches starting at
once in worker threads would otherwise import numba concurrently, and one of them sees a half
made module (`cannot import name 'List' from 'numba.typed'`)."""


def _numba() -> Any:
    """The numba module, imported on first use (a CLI that never searches pays nothing)."""
    with _FIRST_USE:
        import numba
        import numba.typed

        return numba


def _compiled(f: Callable[..., None], fastmath: bool) -> Callable[..., None]:
    """`f` compiled by numba on first use (~1 s each, then read from numba's cache)."""
    got = _KERNELS.get(f.__name__)
    if got is None:
        numba = _numba()
        with _FIRST_USE:
            got = _KERNELS.get(f.__name__)
            if got is None:
                options: dict[str, Any] = {
                    "fastmath": fastmath,
                    "nogil": True,
                    "boundscheck": False,
                }
                try:
                    got = numba.njit(cache=True, **options)(f)
                except RuntimeError:  # no writable cache directory: compile in every process
                    got = numba.njit(**options)(f)
                _KERNELS[f.__name__] = got
    return got


def _scan() -> Callable[..., None]:
    # fastmath: the integer sum may be reordered (vectorised), exact in any order
    return _compiled(_scan_py, fastmath=True)


def _dot() -> Callable[..., None]:
    # strict float32, sums in a fixed order: the exact cosine is one function of row and query
    return _compiled(_dot_py, fastmath=False)


def warm() -> None:
    """Compile the kernels now (a server's warm-up) rather than in its first request."""
    codes, scale, error = quantize(np.ones((1, 4), dtype=np.float32))
    q = np.ones(4, dtype=np.float32)
    out = np.empty(1, dtype=np.float32)
    q_codes, _, _ = quantize(q[None, :], query_levels(4))
    _scan()(codes, scale, error, q_codes[0], 1.0, 1.0, out, out)
    block = np.ones((1, 4), dtype=np.float32)
    # extended once too: the typed list's methods (its `len`) compile on first use, per process
    # (~0.2 s, else in the search after a project's first)
    rows = shelf([block, block], shelf([block]))
    _dot()(rows, np.zeros(1, dtype=np.int64), 1, q, np.empty(1, dtype=np.float32))


def bound(q: np.ndarray, q_error: float) -> tuple[float, float]:
    """(per unit of a row's error, absolute) for query `q` held as codes that lose `q_error`.

    A unit row `x` is held as `s c` with `||x - s c|| = e`, the query as `t k` with
    `||q - t k|| = q_error`; `x . q - (s c) . (t k) = (x - s c) . q + (s c) . (q - t k)`, so the
    scanned value `s t (c . k)` is within `e ||q|| + (1 + e) q_error` of `x . q`
    (Cauchy-Schwarz; `||s c|| <= ||x|| + e`). The integer sum is exact; the few float32 steps
    that finish it and the exact cosine's own float32 sum (within `d * eps` of the true one for
    unit vectors) go to the absolute term, doubled for margin, as are the others.
    """
    d = q.shape[0]
    q2 = float(np.linalg.norm(q.astype(np.float64)))
    margin = 1 + 2**-20
    absolute = (2 * d + 32) * _EPS * max(1.0, q2) + q_error * margin
    return (q2 + q_error) * margin, absolute


class Cosines:
    """Every row's cosine to one query: bounded for all by the scan, exact where asked."""

    def __init__(
        self,
        blocks: Any,
        codes: Sequence[np.ndarray],
        scales: Sequence[np.ndarray],
        errors: Sequence[np.ndarray],
        block: int,
        n: int,
        q: np.ndarray,
    ) -> None:
        self.blocks = blocks
        """`shelf(...)` of the float32 rows, as they were at the search."""
        self.block = block
        self.n = n
        self.q = q
        q_codes, q_scale, q_error = quantize(q[None, :], query_levels(q.shape[0]))
        per_error, self.absolute = bound(q, float(q_error[0]))
        self.low = np.empty(n, dtype=np.float32)
        """Per row, the scanned cosine less its bound but for `absolute`."""
        self.width = np.empty(n, dtype=np.float32)
        """Per row, twice its bound but for `absolute`: `low + width` is the upper bound."""
        scan = _scan()
        for i, (c, s, e) in enumerate(zip(codes, scales, errors, strict=True)):
            lo = i * block
            m = max(0, min(block, n - lo))
            if m:
                part = slice(lo, lo + m)
                scan(
                    c[:m],
                    s[:m],
                    e[:m],
                    q_codes[0],
                    float(q_scale[0]),
                    per_error,
                    self.low[part],
                    self.width[part],
                )

    def __len__(self) -> int:
        return self.n

    def exact(self, rows: np.ndarray | Sequence[int]) -> np.ndarray:
        """The float32 cosine of each of `rows` (a row without a vector: 0)."""
        at = np.asarray(rows, dtype=np.int64)
        out = np.empty(at.size, dtype=np.float32)
        if at.size:
            _dot()(self.blocks, at, self.block, self.q, out)
        return out

    def contenders(self, rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Those of `rows` that can be among their `k` best by cosine, with their exact cosines.

        Every tie with the k-th is included; every row when k <= 0.
        """
        if k <= 0 or rows.size <= k:
            return rows, self.exact(rows)
        low = self.low[rows]
        kth = float(np.partition(low, rows.size - k)[rows.size - k]) - self.absolute
        keep = rows[low + self.width[rows] + self.absolute >= kth]
        return keep, self.exact(keep)
