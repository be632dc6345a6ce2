"""The greedy search's small parts, each against its plain definition.

The search as a whole is checked against a brute force in ``test_agents.py``; these pin the pieces
that make it fast, so a wrong shortcut fails here with a readable counterexample.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import balancer.games.citywright as cw
from balancer.games.citywright.greedy import _best_of, _tie_beats, _tie_key, _tie_u

GAINS = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(vals=st.lists(GAINS, min_size=4, max_size=4), k=st.integers(0, 4), m=st.integers(1, 4))
def test_best_of_is_the_sum_of_the_m_largest_of_the_first_k(vals, k, m):
    # the per-district bound: m tiles of one district on the k cells' best m gains
    expected = sum(sorted(vals[:k], reverse=True)[:m])
    assert math.isclose(_best_of(vals[0], vals[1], vals[2], vals[3], k, m), expected, rel_tol=1e-12, abs_tol=1e-9)


@settings(max_examples=300, deadline=None)
@given(
    salt=st.integers(1, 2**63),
    a=st.integers(0, 2**40),
    b=st.integers(0, 2**40),
    wa=st.sampled_from([1.0, 2.0, 3.0]),
    wb=st.sampled_from([1.0, 2.0, 3.0]),
)
def test_tie_beats_orders_moves_as_their_log_priorities(salt, a, b, wa, wb):
    # the shortcut for one-slot moves (compare u with exp(best key)) must agree with the
    # Efraimidis-Spirakis keys log(u)/w whenever the two keys differ
    salt = np.uint64(salt)
    key_a, key_b = _tie_key(salt, a, wa), _tie_key(salt, b, wb)
    if key_a == key_b:
        return
    assert _tie_beats(_tie_u(salt, a), wa, key_b, math.exp(key_b)) == (key_a > key_b)


def test_placement_adjacency_of_a_straight_ruler_on_the_top_row(cw_cfg):
    # the I ruler lying on cells 0-3 of the top row: each cell touches its row neighbours only, so
    # as bits of the landed cells (in order 0, 1, 2, 3): cell 0 -> {1}, 1 -> {0, 2}, 2 -> {1, 3}, 3 -> {2}
    rules = cw.compile_variant(cw_cfg, 4).rules
    top_row = np.uint64(0b1111)
    hits = [p for p in range(len(rules.pl_mask)) if rules.pl_mask[p] == top_row and rules.pl_star[p] < 0]
    assert hits, "a four-cell placement covering cells 0-3"
    for p in hits:
        assert list(rules.pl_cells[p]) == [0, 1, 2, 3]
        assert list(rules.pl_adj[p]) == [0b0010, 0b0101, 0b1010, 0b0100, 0]


def test_placement_adjacency_includes_the_star(cw_cfg):
    # every five-cell placement whose star lands: the star (bit k) and each landed cell touch each
    # other exactly when the table's neighbour masks say so, both ways
    T = cw.compile_variant(cw_cfg, 4)
    rules, geo = T.rules, T.geo
    checked = 0
    for p in range(len(rules.pl_mask)):
        k = int(rules.pl_k[p])
        if rules.pl_star[p] < 0:
            continue
        cells = [int(c) for c in rules.pl_cells[p, :k]] + [int(rules.pl_star[p])]
        for j, cj in enumerate(cells):
            for jj, cjj in enumerate(cells):
                touching = bool(int(geo.nbr[cj]) >> cjj & 1)
                assert bool(int(rules.pl_adj[p, j]) >> jj & 1) == touching
        checked += 1
    assert checked > 100
