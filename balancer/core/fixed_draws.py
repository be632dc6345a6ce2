"""A stand-in for a random generator whose every draw is fixed, for compiled code.

A game's ``move_scores`` (the compiled interface, :mod:`balancer.core.kernel`) takes no generator,
yet the look-aheads it runs (its greedy agent's search, the rules' chance) draw from one.
:class:`FixedDraws` has the methods of numpy's ``Generator`` that the engines draw with and fixes
every outcome, so that a move's score depends on the position only, not on a stream of draws:
``random()`` gives 0.0, ``integers(lo, hi)`` gives ``lo`` (``integers(lo, hi, size=k)``: ``lo``
each, int64[k]), ``shuffle(a)`` leaves ``a`` as it is. An agent that breaks exact ties with a draw
therefore takes the first of its best decisions (``lo``, or ``0.0`` scaled to an index).
``drawn`` counts the draws.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core.types import ClassInstanceType, NoneType, Omitted
from numba.experimental import jitclass
from numba.extending import overload_method


@jitclass([("drawn", nb.int64)])
class FixedDraws:
    """A generator whose every draw is fixed (module docstring); ``drawn`` counts the draws."""

    def __init__(self):
        self.drawn = 0

    def random(self):
        """0.0."""
        self.drawn += 1
        return 0.0

    def shuffle(self, a):
        """Leaves ``a`` as it is."""
        self.drawn += 1


@overload_method(ClassInstanceType, "integers")
def _fixed_draws_integers(self, lo, hi, size=None):
    """``FixedDraws.integers(lo, hi)`` (``lo``) and ``integers(lo, hi, size=k)`` (``lo`` each, int64[k]),
    the two ways the engines call numpy's ``Generator.integers``."""
    if self.class_type is not FixedDraws.class_type:  # type: ignore[attr-defined]  # jitclass sets it
        return None
    if size is None or isinstance(size, (Omitted, NoneType)):

        def one(self, lo, hi, size=None):
            self.drawn += 1
            return lo

        return one

    def many(self, lo, hi, size=None):
        self.drawn += 1
        return np.full(size, lo, np.int64)

    return many
