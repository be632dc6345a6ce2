"""An exhaustive greedy search for tests, written apart from the agent's pruned one.

:func:`exhaustive_move` plays, on a scratch copy of the mover's table, every turn the greedy agent may
choose: every ruler group (the slots holding the same shape over the same multiset of line tiles),
every legal placement of that shape, every order of the line tiles on its cells, every free pick of a
star that lands on the table, a forced discard for a group with no legal placement, and, under §9.2,
one tile of each district on each empty cell. Each turn is valued by rescoring the whole table
(:func:`~balancer.games.citywright.scoring.score_fast`) and it wins by the rule the agent documents
(:mod:`balancer.games.citywright.agents`): the largest weighted gain (achievements included), then the
tie-break (2 x tiles landed + 1 for a new shape), then a random priority.

The random priority and the draws are a contract shared with the agent, so that the pruned search
can be checked move for move and draw for draw (``test_pruning.py``):

- the turn's salt comes from one ``rng.random()``, drawn first:
  ``uint64(int(u * 2**53)) * 2654435761 + 1``;
- a turn's priority is ``_tie_key(salt, move_id, weight)`` (a splitmix64 hash of the move id under
  the salt, as log(u)/weight), imported from the agent rather than rewritten: it is the hash that is
  the contract, and a second copy of its constants would only test itself. The move ids:
  ``((placement * 32 + order) * 8 + free_pick) * 32 + group`` for a placement (``order`` indexes
  ``rules.SEQS``; ``free_pick`` is 0 when no star lands), ``1 + 4 * group`` for a forced discard,
  ``2 + 4 * (cell * 8 + district)`` for a discard-for-tile; the weight is the number of slots the
  turn may be played from (a group's slots, or the corner slots holding a ruler);
- gains within ``EPS`` (also the agent's) are equal;
- after the choice: the slot among the equal ones (``below(rng, count)``, in slot order), then, for
  a five-cell ruler whose star lands off the table, the free pick as a random site cell's district.

Nothing else comes from the agent: no grouping, bound, ordering or loop of :func:`greedy_move`. The
search is compiled (numba) only to be fast enough; it is plain and slow by design.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from balancer.games.citywright import rules as cwr
from balancer.games.citywright.greedy import EPS, _tie_key
from balancer.games.citywright.scoring import score_fast

NO_TURN = -1


@nb.njit
def _ranks_above(val, sec, key, other_val, other_sec, other_key):
    """Whether a turn valued (val, sec, key) beats one valued (other_val, other_sec, other_key)."""
    if abs(val - other_val) > EPS:
        return val > other_val
    if sec == other_sec:
        return key > other_key
    return sec > other_sec


@nb.njit
def _keep(best, kind, group, placement, order, pick):
    best[0], best[1], best[2], best[3], best[4] = kind, group, placement, order, pick


@nb.njit
def _park_bar(st, rules, geo, sp, seat):
    """The Park subtotal a table must reach to hold Tree-lined (§7): the best other table's (the
    ruling ``all_parks_zero`` when that is 0), or the solo threshold."""
    if rules.n_players == 1:
        return float(rules.tree_solo)
    bar = 0.0
    for other in range(rules.n_players):
        if other != seat:
            bar = max(bar, _points(st.tables[other], geo, sp)[2])
    # every other Park subtotal 0: a Park of 0 holds it only under all_parks_zero: every_player (Q10);
    # under no_one (§10.3 "no table to lead") the table needs a park point to lead
    if bar == 0.0 and not rules.tree_zero_all:
        bar = 1.0
    return bar


@nb.njit
def _points(table, geo, sp):
    """§6.1-§6.4 points of a table as float64[4] (residential, commercial, park, industrial)."""
    r, c, p, i = score_fast(table, geo, sp)
    return np.array([float(r), float(c), float(p), float(i)])


@nb.njit
def _empty_cells(table):
    return np.sum(table == 0)


@nb.njit
def _value_of(work, before, w, tree_gain_pts, bar, ach_pts, ach_on, geo, sp):
    """Weighted gain of the table ``work`` (the turn written on it) over the points ``before``."""
    after = _points(work, geo, sp)
    gain = 0.0
    for cat in range(4):
        gain += w[cat] * (after[cat] - before[cat])
    if ach_on:
        held_after = 1 if after[2] >= bar else 0
        held_before = 1 if before[2] >= bar else 0
        gain += w[4] * (ach_pts + tree_gain_pts * (held_after - held_before))
    return gain


@nb.njit
def _achievement_pts(st, rules, seat, shape):
    """Versatile and Mastery points (§7) that placing a ruler of ``shape`` earns now."""
    ticks = st.ticks[seat]
    shapes_before = 0
    best_tick = 0
    for s in range(rules.n_shapes):
        if ticks[s] > 0:
            shapes_before += 1
        best_tick = max(best_tick, ticks[s])
    shapes_after = shapes_before + (1 if ticks[shape] == 0 else 0)
    pts = 0.0
    if shapes_before < rules.vers_k <= shapes_after:
        pts += rules.vers_pts
    if best_tick < rules.mast_k and ticks[shape] + 1 == rules.mast_k:
        pts += rules.mast_pts
    return pts


@nb.njit
def _group_slots(st):
    """Group id of every slot (-1 when empty): slots share a group when they hold the same shape and
    their lines give the same multiset of tiles; groups are numbered by their first slot."""
    group = np.full(cwr.N_SLOTS, -1, np.int64)
    n_groups = 0
    for s in range(cwr.N_SLOTS):
        if st.slots[s] < 0:
            continue
        for t in range(s):
            if group[t] >= 0 and st.slots[t] == st.slots[s]:
                if cwr.line_multiset(st.site, t) == cwr.line_multiset(st.site, s):
                    group[s] = group[t]
                    break
        if group[s] < 0:
            group[s] = n_groups
            n_groups += 1
    return group, n_groups


@nb.njit
def exhaustive_move(st, rules, geo, sp, w, rng, mv):
    """Fill ``mv`` (the rules' move array) with the greedy turn for the seat to move, found by
    playing every turn in full; draws from ``rng`` as the agent does (module docstring)."""
    seat = cwr.current_seat(st, rules.n_players)
    table = st.tables[seat]
    work = table.copy()  # every turn is written here, scored and erased
    before = _points(table, geo, sp)
    empty_before = _empty_cells(table)
    bar = _park_bar(st, rules, geo, sp, seat) if rules.ach_on else 0.0
    group, n_groups = _group_slots(st)
    salt = np.uint64(int(rng.random() * 9007199254740992.0)) * np.uint64(2654435761) + np.uint64(1)

    # the best turn so far: (kind, group, placement, order, free pick) and its (gain, tie-break, priority)
    best = np.full(5, NO_TURN, np.int64)
    best_val, best_sec, best_key = 0.0, 0, 0.0

    for g in range(n_groups):
        first = np.argmax(group == g)
        weight = np.sum(group == g)
        shape = st.slots[first]
        ms = cwr.line_multiset(st.site, first)
        new_shape = 1 if st.ticks[seat, shape] == 0 else 0
        ach_pts = _achievement_pts(st, rules, seat, shape) if rules.ach_on else 0.0
        has_placement = False
        for p in range(rules.pl_off[shape], rules.pl_off[shape + 1]):
            k = rules.pl_k[p]
            star = rules.pl_star[p]
            legal = True
            for j in range(k):
                legal = legal and table[rules.pl_cells[p, j]] == 0
            if star >= 0:
                legal = legal and table[star] == 0
            if not legal:
                continue
            has_placement = True
            # the free pick: a star on the table takes a district on the site board, else none here
            picks = [0]
            if rules.shape_five[shape] != 0 and star >= 0:
                picks = [d for d in range(1, 5) if np.any(st.site == d)]
            for pick in picks:
                for order in range(cwr.N_SEQ[ms, k]):
                    for j in range(k):
                        work[rules.pl_cells[p, j]] = cwr.SEQS[ms, k, order, j]
                    if pick > 0:
                        work[star] = pick
                    val = _value_of(work, before, w, rules.tree_pts, bar, ach_pts, rules.ach_on, geo, sp)
                    sec = 2 * (empty_before - _empty_cells(work)) + new_shape
                    key = _tie_key(salt, ((p * 32 + order) * 8 + pick) * 32 + g, float(weight))
                    work[:] = table
                    if best[0] == NO_TURN or _ranks_above(val, sec, key, best_val, best_sec, best_key):
                        _keep(best, cwr.PLACE, g, p, order, pick)
                        best_val, best_sec, best_key = val, sec, key
        if not has_placement:
            key = _tie_key(salt, 1 + 4 * g, float(weight))
            if best[0] == NO_TURN or _ranks_above(0.0, 0, key, best_val, best_sec, best_key):
                _keep(best, cwr.FORCED, g, NO_TURN, NO_TURN, 0)
                best_val, best_sec, best_key = 0.0, 0, key

    corner_slots = np.array([s for s in range(cwr.N_EDGE, cwr.N_SLOTS) if st.slots[s] >= 0], np.int64)
    if rules.discard_for_tile and corner_slots.size > 0:
        for c in range(table.shape[0]):
            if table[c] != 0:
                continue
            for d in range(1, 5):
                work[c] = d
                val = _value_of(work, before, w, rules.tree_pts, bar, 0.0, rules.ach_on, geo, sp)
                work[c] = 0
                key = _tie_key(salt, 2 + 4 * (c * 8 + d), float(corner_slots.size))
                if best[0] == NO_TURN or _ranks_above(val, 2, key, best_val, best_sec, best_key):
                    _keep(best, cwr.DISCARD_FOR_TILE, NO_TURN, c, NO_TURN, d)
                    best_val, best_sec, best_key = val, 2, key

    kind, g, p, order, pick = best[0], best[1], best[2], best[3], best[4]
    mv[:] = 0
    if kind == NO_TURN:  # no ruler in any slot: the turn is lost
        mv[0], mv[1] = cwr.FORCED, -1
        return
    if kind == cwr.DISCARD_FOR_TILE:
        mv[0], mv[1], mv[2], mv[3] = kind, corner_slots[cwr.below(rng, corner_slots.size)], p, pick
        return
    candidates = np.array([s for s in range(cwr.N_SLOTS) if group[s] == g], np.int64)
    slot = candidates[cwr.below(rng, candidates.size)]
    mv[0], mv[1] = kind, slot
    if kind == cwr.FORCED:
        return
    shape = st.slots[slot]
    k = rules.pl_k[p]
    mv[2] = p
    mv[3 : 3 + k] = cwr.SEQS[cwr.line_multiset(st.site, slot), k, order, :k]
    if rules.shape_five[shape] != 0:
        # a star off the table still takes a free pick: a random site cell's district
        mv[7] = pick if pick > 0 else st.site[cwr.below(rng, cwr.SITE)]
