"""Seeded float64 test arrays, and closeness of nested tuples of arrays (the gradient tests)."""

from __future__ import annotations

import numpy as np


def assert_tree_close(a, b, rtol=1e-7, atol=1e-9) -> None:
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_tree_close(x, y, rtol, atol)
    else:
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def rand(*shape: int, lo: float = -1.0, hi: float = 1.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + 7 * len(shape)).uniform(lo, hi, shape).astype("float64")
