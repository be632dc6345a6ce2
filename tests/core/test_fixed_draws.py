"""FixedDraws (balancer/core/fixed_draws.py): every draw fixed, each one counted."""

from __future__ import annotations

import numba as nb
import numpy as np

from balancer.core.fixed_draws import FixedDraws


@nb.njit
def _draw_each():
    d = FixedDraws()
    a = np.arange(5)
    d.shuffle(a)
    return d.random(), d.integers(3, 9), d.integers(2, 7, size=4), a, d.drawn


def test_every_draw_is_fixed_and_counted():
    r, one, many, a, drawn = _draw_each()
    assert r == 0.0
    assert one == 3
    assert many.dtype == np.int64 and many.tolist() == [2, 2, 2, 2]
    assert a.tolist() == [0, 1, 2, 3, 4]
    assert drawn == 4
