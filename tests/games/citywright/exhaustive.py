"""The greedy agent's search without any pruning, for tests: every ruler group, legal placement,
tile order and free pick is scored by rescoring the whole table (``score_masks``), and the move
with the largest (gain, tie-break, random priority) wins, the priorities hashed exactly as
:func:`balancer.games.citywright.agents.greedy_move` hashes them. It draws from the generator
exactly as the agent does (one ``rng.random()`` for the turn's salt, then the slot among equal
ones, then an off-table free pick's district), so the pruned search must return the same move and
leave the generator in the same state.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from balancer.games.citywright.agents import EPS, _tie_key, _tie_u
from balancer.games.citywright.rules import (
    DISCARD_FOR_TILE,
    FORCED,
    MS_INDEX,
    N_EDGE,
    N_SEQ,
    N_SLOTS,
    PLACE,
    SEQS,
    SITE,
    SLOT_LINES,
    below,
    current_seat,
)
from balancer.games.citywright.scoring import score_masks, table_masks


@nb.njit
def _better(val, sec, key, best_val, best_sec, best_key):
    """(val, sec, key) beats the best so far: a larger gain, then a larger tie-break, then a larger
    random priority."""
    if val > best_val + EPS:
        return True
    if val < best_val - EPS:
        return False
    if sec != best_sec:
        return sec > best_sec
    return key > best_key


@nb.njit
def exhaustive_move(st, rules, geo, sp, w, rng, mv):
    """Fill ``mv`` as :func:`~balancer.games.citywright.agents.greedy_move` would, by scoring every
    move in full."""
    n = rules.n_players
    seat = current_seat(st, n)
    R, C, P, I = table_masks(st.tables[seat])
    filled = R | C | P | I
    cur = score_masks(R, C, P, I, geo, sp)
    other_p = 0
    tree_before = False
    if rules.ach_on:
        for o in range(n):
            if o != seat:
                r_o, c_o, p_o, i_o = table_masks(st.tables[o])
                other_p = max(other_p, score_masks(r_o, c_o, p_o, i_o, geo, sp)[2])
        tree_before = cur[2] >= (rules.tree_solo if n == 1 else other_p)
    distinct = 0
    mastered = False
    for s in range(rules.n_shapes):
        if st.ticks[seat, s] > 0:
            distinct += 1
        if st.ticks[seat, s] >= rules.mast_k:
            mastered = True
    # ruler groups in slot order: the same shape and the same line tiles are one choice
    g_shape = np.zeros(N_SLOTS, np.int64)
    g_ms = np.zeros(N_SLOTS, np.int64)
    g_w = np.zeros(N_SLOTS, np.int64)
    slot_group = np.full(N_SLOTS, -1, np.int64)
    ng = 0
    n_corner = 0
    for s in range(N_SLOTS):
        shape = st.slots[s]
        if shape < 0:
            continue
        if s >= N_EDGE:
            n_corner += 1
        cnt = np.zeros(5, np.int64)
        for j in range(4):
            cnt[st.site[SLOT_LINES[s, j]]] += 1
        ms = MS_INDEX[cnt[1], cnt[2], cnt[3], cnt[4]]
        found = -1
        for gi in range(ng):
            if g_shape[gi] == shape and g_ms[gi] == ms:
                found = gi
        if found < 0:
            found = ng
            g_shape[ng] = shape
            g_ms[ng] = ms
            ng += 1
        g_w[found] += 1
        slot_group[s] = found
    site_pres = np.zeros(5, np.bool_)
    for i in range(SITE):
        site_pres[st.site[i]] = True

    salt = np.uint64(int(rng.random() * 9007199254740992.0)) * np.uint64(2654435761) + np.uint64(1)
    best_val, best_sec, best_key = -1e18, -1, -1e300
    b_kind, b_group, b_p, b_seq, b_star = -1, -1, -1, -1, 0
    for gi in range(ng):
        shape = g_shape[gi]
        ms = g_ms[gi]
        wgt = float(g_w[gi])
        five = rules.shape_five[shape] != 0
        newshape = 1 if st.ticks[seat, shape] == 0 else 0
        ach = 0.0
        if rules.ach_on:
            if distinct < rules.vers_k and distinct + newshape >= rules.vers_k:
                ach += rules.vers_pts
            if not mastered and st.ticks[seat, shape] + 1 == rules.mast_k:
                ach += rules.mast_pts
        any_valid = False
        for p in range(rules.pl_off[shape], rules.pl_off[shape + 1]):
            if rules.pl_mask[p] & filled:
                continue
            any_valid = True
            k = rules.pl_k[p]
            cs = rules.pl_star[p]
            for sd in range(5):
                if sd == 0 and five and cs >= 0:
                    continue  # a star on the table takes one of the site board's districts
                if sd > 0 and not (five and cs >= 0 and site_pres[sd]):
                    continue
                for q in range(N_SEQ[ms, k]):
                    m = np.zeros(5, np.uint64)
                    for j in range(k):
                        m[SEQS[ms, k, q, j]] |= np.uint64(1) << np.uint64(rules.pl_cells[p, j])
                    if sd > 0:
                        m[sd] |= np.uint64(1) << np.uint64(cs)
                    after = score_masks(R | m[1], C | m[2], P | m[3], I | m[4], geo, sp)
                    val = w[0] * (after[0] - cur[0]) + w[1] * (after[1] - cur[1])
                    val += w[2] * (after[2] - cur[2]) + w[3] * (after[3] - cur[3]) + w[4] * ach
                    if rules.ach_on:
                        t_after = after[2] >= (rules.tree_solo if n == 1 else other_p)
                        val += w[4] * rules.tree_pts * ((1 if t_after else 0) - (1 if tree_before else 0))
                    sec = 2 * (k + (1 if sd > 0 else 0)) + newshape
                    key = np.log(_tie_u(salt, ((p * 32 + q) * 8 + sd) * 32 + gi)) / wgt
                    if _better(val, sec, key, best_val, best_sec, best_key):
                        best_val, best_sec, best_key = val, sec, key
                        b_kind, b_group, b_p, b_seq, b_star = PLACE, gi, p, q, sd
        if not any_valid:
            key = _tie_key(salt, 1 + 4 * gi, wgt)
            if _better(0.0, 0, key, best_val, best_sec, best_key):
                best_val, best_sec, best_key = 0.0, 0, key
                b_kind, b_group = FORCED, gi
    if rules.discard_for_tile and n_corner > 0:
        for c in range(geo.size * geo.size):
            bit = np.uint64(1) << np.uint64(c)
            if filled & bit:
                continue
            for d in range(1, 5):
                m = np.zeros(5, np.uint64)
                m[d] = bit
                after = score_masks(R | m[1], C | m[2], P | m[3], I | m[4], geo, sp)
                val = w[0] * (after[0] - cur[0]) + w[1] * (after[1] - cur[1])
                val += w[2] * (after[2] - cur[2]) + w[3] * (after[3] - cur[3])
                if rules.ach_on:
                    t_after = after[2] >= (rules.tree_solo if n == 1 else other_p)
                    val += w[4] * rules.tree_pts * ((1 if t_after else 0) - (1 if tree_before else 0))
                key = _tie_key(salt, 2 + 4 * (c * 8 + d), float(n_corner))
                if _better(val, 2, key, best_val, best_sec, best_key):
                    best_val, best_sec, best_key = val, 2, key
                    b_kind, b_p, b_star = DISCARD_FOR_TILE, c, d

    mv[:] = 0
    mv[0] = b_kind
    if b_kind < 0:
        mv[0] = FORCED
        mv[1] = -1
        return
    if b_kind == DISCARD_FOR_TILE:
        pick = below(rng, n_corner)
        for s in range(N_EDGE, N_SLOTS):
            if st.slots[s] >= 0:
                if pick == 0:
                    mv[1] = s
                    break
                pick -= 1
        mv[2] = b_p
        mv[3] = b_star
        return
    pick = below(rng, g_w[b_group])
    for s in range(N_SLOTS):
        if slot_group[s] == b_group:
            if pick == 0:
                mv[1] = s
                break
            pick -= 1
    if b_kind == PLACE:
        mv[2] = b_p
        k = rules.pl_k[b_p]
        for j in range(k):
            mv[3 + j] = SEQS[g_ms[b_group], k, b_seq, j]
        if rules.shape_five[g_shape[b_group]]:
            mv[7] = b_star if b_star > 0 else st.site[below(rng, SITE)]
