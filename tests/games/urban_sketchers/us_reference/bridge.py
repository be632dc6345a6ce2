"""Bridges between the two engines, for the tests: a reference :class:`.rules.State` as a compiled
state buffer (:func:`load`) and back (:func:`from_buffer`, :func:`to_reference`). The compiled
engine (``balancer.games.urban_sketchers.fast``) lays the buffer out (``state_shapes``, ``views``);
these only copy the reference's lists into it and out of it."""

from __future__ import annotations

from math import prod

import numpy as np

from balancer.games.urban_sketchers import kernel
from balancer.games.urban_sketchers.fast import (
    G_BAG_N,
    G_BDISC_N,
    G_DECK_N,
    G_DISCARD_N,
    G_NAMES,
    G_NDICE,
    G_X_N,
    ST_NAMES,
    state_shapes,
    views,
)

from .rules import P_SETUP, Rules, State

LISTS = (
    "cuser",
    "cval",
    "sup_tile",
    "theme_at",
    "board",
    "display",
    "reserve",
    "theme_supply",
    "imp_supply",
    "money",
    "vp",
    "prestige",
    "pubs",
    "th_up",
    "th_down",
    "opp",
    "imp",
    "pos",
    "s_fee",
)
"""The fields held as fixed-length lists of ints on both sides (beside the flags ``occ`` and ``sup_occ``)."""


def state_size(r: Rules) -> int:
    """The int64s in a state buffer of variant ``r``."""
    return sum(prod(shape) for _, shape in state_shapes(r))


def load(s: State, buf: np.ndarray | None = None) -> np.ndarray:
    """The reference state ``s`` as a state buffer (written into ``buf`` if given).

    A reference state does not record what is hidden: during Set Up every card in a hand counts as
    dealt face down (``secret``), afterwards none does, and the deck counts as never rebuilt
    (``G_DECK_SEEN`` 0). Only determinize reads them; rules and agents never do."""
    r = s.rules
    if buf is None:
        buf = np.zeros(state_size(r), np.int64)
    buf[:] = 0
    f = views(buf, r)
    for i, name in enumerate(G_NAMES):
        f["g"][i] = int(getattr(s, name))
    f["g"][G_X_N] = len(s.x_allowed)
    f["x_allowed"][: len(s.x_allowed)] = s.x_allowed
    for name, key in (("deck", G_DECK_N), ("discard", G_DISCARD_N), ("bag", G_BAG_N), ("bdiscard", G_BDISC_N)):
        items = getattr(s, name)
        f["g"][key] = len(items)
        f[name][: len(items)] = items
    f["g"][G_NDICE] = len(s.dice)
    for name in ("dice", "dcol", "dused"):
        f[name][: len(s.dice)] = [int(x) for x in getattr(s, name)]
    for name in ("occ", "sup_occ", *LISTS):
        f[name][...] = np.asarray(getattr(s, name), dtype=np.int64)
    for p in range(r.n):
        f["bp_n"][p] = len(s.bp[p])
        f["bp"][p, : len(s.bp[p])] = s.bp[p]
        f["hand_n"][p] = len(s.hand[p])
        f["hand"][p, : len(s.hand[p])] = s.hand[p]
        for b in range(r.books):
            f["books_n"][p, b] = len(s.books[p][b])
            f["books"][p, b, : len(s.books[p][b])] = s.books[p][b]
            f["btiles_n"][p, b] = len(s.btiles[p][b])
            f["btiles"][p, b, : len(s.btiles[p][b])] = s.btiles[p][b]
    for i, name in enumerate(ST_NAMES):
        f["st"][:, i] = getattr(s, name)
    f["st_actions"][...] = s.st_actions
    f["st_colours"][...] = s.st_colours
    f["st_imp"][...] = s.st_imp_taken
    if s.phase == P_SETUP:
        f["secret"][:] = f["hand_n"]
    return buf


def from_buffer(buf: np.ndarray, r: Rules, rng: np.random.Generator | None = None) -> State:
    """The reference :class:`.rules.State` equal to state buffer ``buf`` of variant ``r`` (lists of ints, flags as bools)."""
    f = views(buf, r)
    s = State.__new__(State)
    s.rules, s.rng = r, rng
    g = [int(x) for x in f["g"]]
    for i, name in enumerate(G_NAMES):
        setattr(s, name, g[i])
    for name in ("acted", "over", "end_triggered"):
        setattr(s, name, bool(getattr(s, name)))
    s.x_allowed = [int(x) for x in f["x_allowed"][: g[G_X_N]]]
    s.deck = f["deck"][: g[G_DECK_N]].tolist()
    s.discard = f["discard"][: g[G_DISCARD_N]].tolist()
    s.bag = f["bag"][: g[G_BAG_N]].tolist()
    s.bdiscard = f["bdiscard"][: g[G_BDISC_N]].tolist()
    k = g[G_NDICE]
    s.dice, s.dcol = f["dice"][:k].tolist(), f["dcol"][:k].tolist()
    s.dused = [bool(x) for x in f["dused"][:k]]
    s.occ = [[bool(x) for x in row] for row in f["occ"]]
    s.sup_occ = [bool(x) for x in f["sup_occ"]]
    for name in LISTS:
        setattr(s, name, f[name].tolist())
    n = r.n
    s.bp = [f["bp"][p, : f["bp_n"][p]].tolist() for p in range(n)]
    s.hand = [f["hand"][p, : f["hand_n"][p]].tolist() for p in range(n)]
    s.books = [[f["books"][p, b, : f["books_n"][p, b]].tolist() for b in range(r.books)] for p in range(n)]
    s.btiles = [[f["btiles"][p, b, : f["btiles_n"][p, b]].tolist() for b in range(r.books)] for p in range(n)]
    for i, name in enumerate(ST_NAMES):
        setattr(s, name, f["st"][:, i].tolist())
    s.st_actions, s.st_colours, s.st_imp_taken = (
        f["st_actions"].tolist(),
        f["st_colours"].tolist(),
        f["st_imp"].tolist(),
    )
    return s


def to_reference(S: np.ndarray, T: kernel.Table, rng: np.random.Generator | None = None) -> State:
    """The reference :class:`.rules.State` equal to the compiled state ``S`` of table ``T``."""
    return from_buffer(S, kernel.variant_of(T)[1], rng)
