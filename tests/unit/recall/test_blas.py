"""`recall.blas.one_thread`: the indexes' products run on one BLAS thread, then it is given back."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from recall.blas import one_thread


def _blas_threads() -> list[int]:
    """Threads of numpy's own BLAS (other libraries loaded by other tests bring their own)."""
    return [
        i["num_threads"]
        for i in threadpool_info()
        if i["user_api"] == "blas" and "numpy" in i["filepath"]
    ]


def test_one_thread_limits_numpys_blas_inside_and_restores_it_after() -> None:
    before = _blas_threads()
    assert before, "numpy is linked to a BLAS threadpoolctl can see"
    m = np.ones((3000, 384), dtype=np.float32)
    with one_thread():
        assert _blas_threads() == [1] * len(before)
        product = m @ np.ones(384, dtype=np.float32)
    assert _blas_threads() == before
    assert product.shape == (3000,)
    assert float(product[0]) == 384.0


def test_one_thread_restores_the_threads_when_the_product_fails() -> None:
    before = _blas_threads()
    with pytest.raises(ValueError, match="mismatch"), one_thread():
        np.ones((4, 3)) @ np.ones(5)  # shapes that do not match
    assert _blas_threads() == before
