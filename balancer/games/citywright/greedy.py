"""Citywright's greedy search: the exact gain of every whole turn under the variant's own scoring
(§6, §7 achievements, §8 tie-breakers), searched by branch and bound (:func:`greedy_search`).

Shared by the greedy and specialist agents (:mod:`.agents`: :func:`greedy_move`, the best turn) and by
the compiled interface's move scores (:func:`.kernel.move_scores`: the best gain each decision of a
turn can complete, :func:`greedy_search`'s scoring modes), so both read one evaluation.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from .rules import (
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
    placement_fits,
)
from .scoring import grow_cluster, placement_features, popcount, score_masks, spread, table_masks

EPS = 1e-9


def _skip_table() -> np.ndarray:
    """SKIP[ms, k, q, j]: the first sequence after q whose first j+1 districts differ from q's
    (sequences are sorted, so all that share a prefix are contiguous); lets the search drop every
    assignment that starts with a prefix whose bound already fails."""
    skip = np.zeros((35, 5, 24, 4), np.int64)
    for ms in range(35):
        for k in range(5):
            n = int(N_SEQ[ms, k])
            for q in range(n):
                for j in range(k):
                    nxt = q + 1
                    while nxt < n and (SEQS[ms, k, nxt, : j + 1] == SEQS[ms, k, q, : j + 1]).all():
                        nxt += 1
                    skip[ms, k, q, j] = nxt
    return skip


SKIP = _skip_table()


def _presence_left_table() -> np.ndarray:
    """PRES_LEFT[ms, k, q, j]: districts (bit d-1 for district d) still among the multiset's tiles
    after sequence q has placed its first j+1 tiles."""
    out = np.zeros((35, 5, 24, 4), np.int64)
    for a in range(5):
        for b in range(5 - a):
            for c in range(5 - a - b):
                counts = [0, a, b, c, 4 - a - b - c]
                ms = int(MS_INDEX[a, b, c, 4 - a - b - c])
                for k in range(5):
                    for q in range(int(N_SEQ[ms, k])):
                        left = counts.copy()
                        for j in range(k):
                            left[int(SEQS[ms, k, q, j])] -= 1
                            out[ms, k, q, j] = sum(1 << (d - 1) for d in range(1, 5) if left[d] > 0)
    return out


PRES_LEFT = _presence_left_table()


BUCKETS = 1000
"""Most buckets of the bound-ordered visit in :func:`greedy_move` (wider buckets past that)."""


class Workspace(NamedTuple):
    """Scratch arrays of the greedy search (see :func:`workspace` for their shapes)."""

    comp_mask: np.ndarray
    comp_size: np.ndarray
    order: np.ndarray
    adjcl: np.ndarray
    cc_adj: np.ndarray
    cc_n: np.ndarray
    dc_max: np.ndarray
    di_max: np.ndarray
    ub: np.ndarray
    ubmax: np.ndarray
    rb_tab: np.ndarray
    g_shape: np.ndarray
    g_ms: np.ndarray
    g_w: np.ndarray
    g_cnt: np.ndarray
    slot_group: np.ndarray
    cnt: np.ndarray
    memo_r: np.ndarray
    memo_stamp: np.ndarray
    memo_key: np.ndarray
    memo_turn: np.ndarray
    dist: np.ndarray
    cell: np.ndarray
    U: np.ndarray
    adjloc: np.ndarray
    iso_b: np.ndarray
    row_free: np.ndarray
    col_free: np.ndarray
    restm: np.ndarray
    g_pres: np.ndarray
    g_ach: np.ndarray
    g_new: np.ndarray
    cand_ub: np.ndarray
    cand_cell: np.ndarray
    cand_star: np.ndarray
    cand_g: np.ndarray
    cand_p: np.ndarray
    cand_tadj: np.ndarray
    cand_urank: np.ndarray
    cand_vi: np.ndarray
    sorted_i: np.ndarray
    g_sorted: np.ndarray
    v_p: np.ndarray
    v_tadj: np.ndarray
    v_urank: np.ndarray
    v_feat: np.ndarray
    t_smax: np.ndarray
    pl_rows: np.ndarray
    pl_cols: np.ndarray
    pl_ring: np.ndarray
    pl_spread: np.ndarray
    sh_n: np.ndarray
    sh_max: np.ndarray
    g_ub: np.ndarray
    b_start: np.ndarray
    t_term: np.ndarray


@nb.njit(cache=True, inline="always")
def _tie_key(salt, move_id, weight):
    """Random priority of a move among exact ties (Efraimidis-Spirakis: the largest log(u)/w wins, so
    a move standing for w slots is picked w times as often), u from :func:`_tie_u`."""
    return np.log(_tie_u(salt, move_id)) / weight


@nb.njit(cache=True, inline="always")
def _tie_beats(u, weight, best_key, best_u):
    """Whether the priority log(u)/weight beats ``best_key``; ``best_u`` is exp(best_key), so a move of
    weight 1 (one slot, the common case) compares without a logarithm."""
    if weight == 1.0:
        return u > best_u
    return np.log(u) / weight > best_key


@nb.njit(cache=True, inline="always")
def _beats(val, sec, best_val, best_sec, wins_tie):
    """Whether a candidate beats the best so far: a higher value (beyond :data:`EPS`), then at an equal
    value (within EPS) a higher tie-break ``sec``, then at both equal its random priority, which the
    caller compares (``wins_tie``: e.g. its key above the best's; False: never, True: always)."""
    return val > best_val + EPS or (val >= best_val - EPS and (sec > best_sec or (sec == best_sec and wins_tie)))


@nb.njit(cache=True, inline="always")
def _tie_u(salt, move_id):
    """A uniform number in (0, 1) from a splitmix64 hash of the move under ``salt``, which the agent
    draws from its generator once per turn."""
    x = salt ^ (np.uint64(move_id) * np.uint64(0x9E3779B97F4A7C15))
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    u = (float(x >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)
    return u


@nb.njit(cache=True, error_model="numpy")
def _residential_after(lr, cell, adjloc, comp_size, order, ncomp, adjcl, lp, lt, sp2, cc_adj, cc_n):
    """§6.1 residential points after a placement puts residential tiles on its cells ``cell[j]`` for
    the bits j of ``lr`` (``adjloc[j]``: the placement's cells touching cell j, as bits), given the
    clusters of sizes ``comp_size`` (ids by size, largest first, in ``order[:ncomp]``); ``adjcl[c]``
    has bit j set when cluster j touches cell c. ``cc_adj`` (uint64[5]) and ``cc_n`` (int64[5]) are
    scratch space for the new cells' own components (at most 5 new cells)."""
    # the new cells' components among themselves, each with the clusters it touches
    ncc = 0
    rest = lr
    while rest:
        comp = rest & -rest
        while True:
            grown = comp
            x = comp
            while x:
                grown |= adjloc[popcount(np.uint64((x & -x) - 1))] & lr
                x &= x - 1
            if grown == comp:
                break
            comp = grown
        rest &= ~comp
        adj = np.uint64(0)
        n_new = 0
        x = comp
        while x:
            adj |= adjcl[cell[popcount(np.uint64((x & -x) - 1))]]
            n_new += 1
            x &= x - 1
        cc_adj[ncc] = adj
        cc_n[ncc] = n_new
        ncc += 1
    # components that touch a common cluster become one cluster
    merged = True
    while merged:
        merged = False
        for i in range(ncc):
            if cc_n[i] == 0:
                continue
            for j in range(i + 1, ncc):
                if cc_n[j] > 0 and cc_adj[i] & cc_adj[j]:
                    cc_adj[i] |= cc_adj[j]
                    cc_n[i] += cc_n[j]
                    cc_n[j] = 0
                    merged = True
    # the two largest clusters among the grown ones and those the new cells do not touch
    used = np.uint64(0)
    a = 0
    b = 0
    for i in range(ncc):
        if cc_n[i] == 0:
            continue
        used |= cc_adj[i]
        size = cc_n[i]
        x = cc_adj[i]
        while x:
            size += comp_size[popcount((x & (~x + np.uint64(1))) - np.uint64(1))]
            x &= x - np.uint64(1)
        if size > a:
            b = a
            a = size
        elif size > b:
            b = size
    taken = 0
    for q in range(ncomp):
        j = order[q]
        if used & (np.uint64(1) << np.uint64(j)):
            continue
        size = comp_size[j]
        if size > a:
            b = a
            a = size
        elif size > b:
            b = size
        taken += 1
        if taken == 2:
            break
    return lp * (a // lt) + sp2 * b


@nb.njit(cache=True, inline="always")
def _best_of(u0, u1, u2, u3, k, m):
    """The sum of the ``m`` largest of the first ``k`` (at most 4) values ``u0..u3``."""
    if k == 0:
        return 0.0
    if k == 1:
        return u0
    if k == 2:
        return u0 + u1 if m >= 2 else max(u0, u1)
    if k == 3:
        if m >= 3:
            return u0 + u1 + u2
        if m == 2:
            return u0 + u1 + u2 - min(u0, min(u1, u2))
        return max(u0, max(u1, u2))
    if m >= 4:
        return u0 + u1 + u2 + u3
    if m == 1:
        return max(max(u0, u1), max(u2, u3))
    lo01 = min(u0, u1)
    lo23 = min(u2, u3)
    if m == 3:
        return u0 + u1 + u2 + u3 - min(lo01, lo23)
    # m == 2: the two smallest of four are the smaller pair minimum and the smaller of the rest
    hi01 = max(u0, u1)
    hi23 = max(u2, u3)
    if lo01 <= lo23:
        return u0 + u1 + u2 + u3 - lo01 - min(hi01, lo23)
    return u0 + u1 + u2 + u3 - lo23 - min(hi23, lo01)


@nb.njit(cache=True, error_model="numpy")
def _residential_bound(T, U1, lp, lt, sp2):
    """Upper bound on §6.1 points after a placement whose new residential tiles and the clusters
    they may join total ``T`` tiles, when the largest cluster the placement does not touch has
    ``U1`` tiles (clusters it does not touch keep their sizes; the touched part splits into
    clusters of at most ``T`` tiles in all). The two scoring clusters are then either one of the
    touched part with the largest untouched one (``T`` and ``U1``, the larger scoring as largest),
    or two of the touched part, ``T - y`` and ``y`` tiles (y >= 1); on each residue of ``T - y``
    modulo ``lt`` the points are linear in ``y``, so only the ends of each residue need a look.
    Nondecreasing in ``T`` and in ``U1``."""
    a = max(T, U1)
    best = lp * (a // lt) + sp2 * min(T, U1)
    half = T // 2
    if half >= 1:
        for y in range(1, min(half, lt) + 1):
            v = lp * ((T - y) // lt) + sp2 * y
            if v > best:
                best = v
        for y in range(max(1, half - lt + 1), half + 1):
            v = lp * ((T - y) // lt) + sp2 * y
            if v > best:
                best = v
    return best


BEST, BY_RULER, BY_PLACEMENT, BY_ORDER, BY_PICK = 0, 1, 2, 3, 4
"""Modes of :func:`greedy_search`: the best turn (the greedy agents), or the best gain of each
decision's completions (the compiled interface's move scores)."""
SEC_UNIT = 1.0 / 64.0
"""A move's score is its gain plus ``SEC_UNIT`` times its tie-break (2 x tiles landed + new shape,
at most 11): below the smallest difference of two gains (1 point; 0.5 with a specialist's 1.5), so
the best score is the best (gain, tie-break) pair."""


@nb.njit(cache=True, error_model="numpy")
def greedy_search(st, rules, geo, sp, w, salt, ws, mode, t_slot, t_p, t_q, rec):
    """The greedy search (weights ``w``; ``salt``: the random priorities of exact ties; scratch
    ``ws``). ``mode`` BEST returns the best turn as (kind, ruler group, placement or cell, tile order
    or district, free pick, corner rulers); the group's slots are ``ws.slot_group``. The other modes
    write into ``rec`` (float64, at least ``P + 4 * cells`` long, P the placements) the best score
    (gain + :data:`SEC_UNIT` x tie-break) of every turn each decision can complete, the searches
    pruned against each decision's own best instead of the overall best:
    BY_RULER ``rec[g]`` per ruler group g (``ws.slot_group``); BY_PLACEMENT (the ruler of slot
    ``t_slot``) ``rec[p]`` per placement p; BY_ORDER (and placement ``t_p``) ``rec[q]`` per tile
    order q (:data:`~.rules.SEQS`); BY_PICK (and tile order ``t_q``) ``rec[d]`` per free pick d.
    BY_RULER and BY_PLACEMENT also write each §9.2 discard-for-tile's score at ``rec[P + 4 c + d - 1]``
    (cell c, district d). Entries of moves that are not legal are left as they were."""
    n = rules.n_players
    seat = current_seat(st, n)
    table = st.tables[seat]
    cells = table.shape[0]
    R, C, P, I = table_masks(table)
    filled = R | C | P | I
    lp, lt, sp2 = sp.res_largest_points, sp.res_largest_per, sp.res_second_points

    # residential clusters, largest first
    # every scratch array is a view into the workspace (no allocation per move)
    comp_mask = ws.comp_mask
    comp_size = ws.comp_size
    comp_size[:] = 0
    ncomp = 0
    rest = R
    while rest:
        comp = grow_cluster(rest & (~rest + np.uint64(1)), R, geo)
        rest &= ~comp
        comp_mask[ncomp] = comp
        comp_size[ncomp] = popcount(comp)
        ncomp += 1
    order = ws.order
    for q in range(ncomp):
        j = q
        while j > 0 and comp_size[order[j - 1]] < comp_size[q]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = q
    adjcl = ws.adjcl
    adjcl[:] = 0  # cells + 1 entries: the last one stays 0
    cc_adj = ws.cc_adj
    cc_n = ws.cc_n
    for j in range(ncomp):
        x = spread(comp_mask[j], geo) & ~filled
        while x:
            i = popcount((x & (~x + np.uint64(1))) - np.uint64(1))
            adjcl[i] |= np.uint64(1) << np.uint64(j)
            x &= x - np.uint64(1)
    cur_r, cur_c, cur_p, cur_i = score_masks(R, C, P, I, geo, sp)
    iso_c = C & ~spread(C, geo)
    lonely_p = P & ~spread(R | C, geo)
    rows_p = 0
    cols_p = 0
    x = P
    while x:
        i = popcount((x & (~x + np.uint64(1))) - np.uint64(1))
        rows_p |= geo.row_bit[i]
        cols_p |= geo.col_bit[i]
        x &= x - np.uint64(1)
    n_c = popcount(C)
    n_i = popcount(I)
    wr, wc, wp, wi, wa = w[0], w[1], w[2], w[3], w[4]

    # count-based gains: best possible with at most m new tiles of the district
    dc_max = ws.dc_max
    di_max = ws.di_max
    bc = 0.0
    bi = 0.0
    for m in range(6):
        if n_c + m <= cells:
            bc = max(bc, float(sp.com_count[n_c + m] - sp.com_count[n_c]))
        if n_i + m <= cells:
            bi = max(bi, float(sp.ind_count[n_i + m] - sp.ind_count[n_i]))
        dc_max[m] = wc * bc
        di_max[m] = wi * bi

    # achievements (§7): Tree-lined against the other tables' current Park subtotals
    tree_before = False
    other_p = 0
    if rules.ach_on:
        for o in range(n):
            if o != seat:
                r_o, c_o, p_o, i_o = table_masks(st.tables[o])
                _, _, pp, _ = score_masks(r_o, c_o, p_o, i_o, geo, sp)
                other_p = max(other_p, pp)
    # the Park subtotal the mover's table must reach to hold Tree-lined: solo the threshold (§10.3);
    # else the best other table's, tied included (Q10), but when that is 0 a Park of 0 holds it only
    # under achievements.tree_lined.all_parks_zero: every_player (no_one: a park tile leads, 1 point)
    tree_bar = rules.tree_solo if n == 1 else (other_p if (other_p > 0 or rules.tree_zero_all) else 1)
    if rules.ach_on:
        tree_before = cur_p >= tree_bar
    distinct = 0
    mastered = False
    for s in range(rules.n_shapes):
        if st.ticks[seat, s] > 0:
            distinct += 1
        if st.ticks[seat, s] >= rules.mast_k:
            mastered = True

    # optimistic per-cell gain of each district (no count terms, no residential clusters)
    ub = ws.ub
    ub[:, :] = 0.0
    for c in range(cells):
        if filled & (np.uint64(1) << np.uint64(c)):
            continue
        nb_ = geo.nbr[c]
        lonely = popcount(nb_ & lonely_p)
        ub[c, 1] = wp * sp.park_touching * lonely
        ub[c, 2] = wc * sp.com_isolated * (1 if nb_ & C == 0 else 0) + wp * sp.park_touching * lonely
        ub[c, 3] = wp * (
            sp.park_touching
            + (sp.park_row if rows_p & geo.row_bit[c] == 0 else 0)
            + (sp.park_col if cols_p & geo.col_bit[c] == 0 else 0)
        )
        ub[c, 4] = wi * sp.ind_ring * (1 if geo.ring & (np.uint64(1) << np.uint64(c)) else 0)
    ubmax = ws.ubmax  # filled below for the district sets in use

    site_pres = 0
    for i in range(SITE):
        site_pres |= 1 << (st.site[i] - 1)
    # rb_tab[j, T]: weighted bound on the residential gain when new cells and the clusters they touch
    # total T tiles and the largest cluster the placement does not touch is at most the j-th largest
    # (j = 0..3; none when j >= ncomp)
    # (a placement adds at most 5 tiles to the clusters it touches; ranks past min(ncomp, 3) are never read)
    rb_tab = ws.rb_tab
    if wr > 0:
        n_res = popcount(R)
        for j in range(min(ncomp, 3) + 1):
            u1 = comp_size[order[j]] if j < ncomp else 0
            for t_ in range(n_res + 6):
                rb_tab[j, t_] = wr * max(0.0, float(_residential_bound(t_, u1, lp, lt, sp2) - cur_r))
    else:
        rb_tab[:, :] = 0.0

    # ruler groups: slots with the same shape and the same tiles are the same choice
    g_shape = ws.g_shape
    g_ms = ws.g_ms
    g_w = ws.g_w
    g_w[:] = 0
    g_cnt = ws.g_cnt
    g_cnt[:, :] = 0
    slot_group = ws.slot_group
    slot_group[:] = -1
    ng = 0
    n_corner = 0
    for s in range(N_SLOTS):
        shape = st.slots[s]
        if shape < 0:
            continue
        if s >= N_EDGE:
            n_corner += 1
        cnt = ws.cnt
        cnt[:] = 0
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
            g_cnt[ng, :] = cnt
            ng += 1
        g_w[found] += 1
        slot_group[s] = found

    best_val = -1e18
    best_sec = -1
    best_key = -1e300
    best_u = 0.0  # exp(best_key)
    b_kind = -1
    b_group = -1
    b_p = -1
    b_seq = -1
    b_star = 0
    # residential gains memoised by the set of new residential cells, for this move only (an
    # open-addressing table; a slot belongs to this move when its stamp is this move's)
    memo_r = ws.memo_r
    memo_stamp = ws.memo_stamp
    memo_key = ws.memo_key
    memo_turn = ws.memo_turn
    memo_turn[0] += 1
    stamp = memo_turn[0]
    n_memo = memo_r.shape[0]  # a power of two, 2^(64-53)
    memo_n = 0  # entries this move; at most half the table, so a probe always ends
    dist = ws.dist
    cell = ws.cell
    U = ws.U
    adjloc = ws.adjloc
    iso_b = ws.iso_b
    row_free = ws.row_free
    col_free = ws.col_free
    restm = ws.restm
    t_term = ws.t_term

    # the ruler whose decisions are scored (modes past BY_RULER): the group of slot t_slot
    tg = slot_group[t_slot] if mode >= BY_PLACEMENT else -1
    n_pl = rules.pl_mask.shape[0]
    # per group: districts present, achievement gain (§7), whether the shape is new
    g_pres = ws.g_pres
    g_pres[:] = 0
    g_ach = ws.g_ach
    g_new = ws.g_new
    tree_ub = wa * rules.tree_pts if (rules.ach_on and not tree_before) else 0.0
    for gi in range(ng):
        shape = g_shape[gi]
        for d in range(4):
            if g_cnt[gi, d + 1] > 0:
                g_pres[gi] |= 1 << d
        g_new[gi] = 1 if st.ticks[seat, shape] == 0 else 0
        ach = 0.0
        if rules.ach_on:
            if distinct < rules.vers_k and distinct + g_new[gi] >= rules.vers_k:
                ach += rules.vers_pts
            if not mastered and st.ticks[seat, shape] + 1 == rules.mast_k:
                ach += rules.mast_pts
        g_ach[gi] = wa * ach + tree_ub
    # ubmax[m, c]: the best per-cell gain at c over the districts in mask m (bit d-1 for district d)
    for c in range(cells):
        ubmax[0, c] = -1e18
        for m in range(1, 16):
            low = m & -m
            d = 1 if low == 1 else (2 if low == 2 else (3 if low == 4 else 4))
            ubmax[m, c] = max(ubmax[m & (m - 1), c], ub[c, d])

    # pass 1: every legal placement of each shape present, with the features its bounds need
    # (shared by every ruler of that shape), and per shape the largest of each feature
    cand_ub = ws.cand_ub
    cand_g = ws.cand_g
    cand_p = ws.cand_p
    cand_tadj = ws.cand_tadj
    cand_urank = ws.cand_urank
    cand_vi = ws.cand_vi
    v_p = ws.v_p
    v_tadj = ws.v_tadj
    v_urank = ws.v_urank
    v_feat = ws.v_feat
    t_smax = ws.t_smax
    pl_rows = ws.pl_rows
    pl_cols = ws.pl_cols
    pl_ring = ws.pl_ring
    pl_spread = ws.pl_spread
    sh_n = ws.sh_n
    sh_max = ws.sh_max
    g_ub = ws.g_ub
    g_sorted = ws.g_sorted
    no_c_nbr = ~spread(C, geo) & ~filled
    sh_n[:] = -1
    for gi in range(ng):
        shape = g_shape[gi]
        if sh_n[shape] >= 0 or (tg >= 0 and gi != tg):
            continue
        # the clusters a placement touches matter only when a residential tile can land
        need_r = wr > 0 and rules.shape_five[shape] != 0 and (site_pres & 1) != 0
        for gx2 in range(ng):
            if g_shape[gx2] == shape and g_cnt[gx2, 1] > 0:
                need_r = wr > 0
        off = rules.pl_off[shape]
        nvalid = 0
        fm = sh_max[shape]
        fm[:] = 0
        fm[6] = 3  # the smallest rank of the largest untouched cluster
        for p in range(off, rules.pl_off[shape + 1]):
            if not placement_fits(rules, p, filled):  # §5: the kernel's one placement legality
                continue
            t_adj = 0
            u_rank = 0
            if need_r:
                # padding cells and an absent star (-1) read adjcl's last entry, always 0
                touched = (
                    adjcl[rules.pl_cells[p, 0]]
                    | adjcl[rules.pl_cells[p, 1]]
                    | adjcl[rules.pl_cells[p, 2]]
                    | adjcl[rules.pl_cells[p, 3]]
                    | adjcl[rules.pl_star[p]]
                )
                adj = touched
                while adj:
                    j = popcount((adj & (~adj + np.uint64(1))) - np.uint64(1))
                    t_adj += comp_size[j]
                    adj &= adj - np.uint64(1)
                # the rank of the largest cluster it does not touch (capped at 3: a bound)
                while u_rank < min(ncomp, 3) and touched & (np.uint64(1) << np.uint64(order[u_rank])):
                    u_rank += 1
            vi = off + nvalid
            v_p[vi] = p
            v_tadj[vi] = t_adj
            v_urank[vi] = u_rank
            # features of its landed cells (the star included) that bound each district's points
            lm = rules.pl_mask[p]
            f0 = popcount(lm & no_c_nbr)  # cells a commercial tile would be isolated on
            f1 = pl_ring[p]  # ring cells (industrial)
            f2 = popcount(pl_spread[p] & lonely_p)  # parks a new tile could make touch
            f3 = popcount(np.uint64(pl_rows[p] & ~rows_p))  # rows without a park
            f4 = popcount(np.uint64(pl_cols[p] & ~cols_p))  # columns without a park
            v_feat[vi, 0] = f0
            v_feat[vi, 1] = f1
            v_feat[vi, 2] = f2
            v_feat[vi, 3] = f3
            v_feat[vi, 4] = f4
            fm[0] = max(fm[0], f0)
            fm[1] = max(fm[1], f1)
            fm[2] = max(fm[2], f2)
            fm[3] = max(fm[3], f3)
            fm[4] = max(fm[4], f4)
            fm[5] = max(fm[5], t_adj)
            fm[6] = min(fm[6], u_rank)
            nvalid += 1
        sh_n[shape] = nvalid

    # a bound per ruler over all its placements (the features at their largest), and the rulers
    # in decreasing order of it; a ruler without a legal placement is a forced discard (§5)
    ng_live = 0
    for gi in range(ng):
        shape = g_shape[gi]
        if tg >= 0 and gi != tg:
            continue
        if sh_n[shape] == 0:
            val = 0.0
            sec = 0
            if mode == BY_RULER:
                rec[gi] = 0.0
            wgt = float(g_w[gi])
            key = _tie_key(salt, 1 + 4 * gi, wgt)
            if _beats(val, sec, best_val, best_sec, key > best_key):
                best_val, best_sec, best_key = val, sec, key
                best_u = np.exp(key)
                b_kind, b_group = FORCED, gi
            continue
        fm = sh_max[shape]
        five_g = rules.shape_five[shape] != 0
        wild = 1 if five_g else 0
        landed = 4 + wild
        n_r = g_cnt[gi, 1]
        n_cm = g_cnt[gi, 2]
        n_in = g_cnt[gi, 4]
        m_r = min(n_r + (wild & site_pres), landed)
        m_c = min(n_cm + (wild & (site_pres >> 1)), landed)
        m_p = min(g_cnt[gi, 3] + (wild & (site_pres >> 2)), landed)
        m_i = min(n_in + (wild & (site_pres >> 3)), landed)
        tsm = dc_max[min(n_cm, landed)] + di_max[min(n_in, landed)]
        if five_g:
            for si in range(4):
                if site_pres & (1 << si):
                    tsm = max(
                        tsm,
                        dc_max[min(n_cm + (1 if si == 1 else 0), landed)]
                        + di_max[min(n_in + (1 if si == 3 else 0), landed)],
                    )
        gb = (
            g_ach[gi]
            + wp * (sp.park_touching * m_p + sp.park_row * min(m_p, fm[3]) + sp.park_col * min(m_p, fm[4]))
            + wc * sp.com_isolated * min(m_c, fm[0])
            + wi * sp.ind_ring * min(m_i, fm[1])
            + tsm
        )
        if m_r + m_c > 0:
            gb += wp * sp.park_touching * fm[2]
        if m_r > 0:
            gb += rb_tab[fm[6], m_r + fm[5]]
        g_ub[gi] = gb
        j = ng_live
        while j > 0 and g_ub[g_sorted[j - 1]] < gb:
            g_sorted[j] = g_sorted[j - 1]
            j -= 1
        g_sorted[j] = gi
        ng_live += 1

    # ruler by ruler, best bound first: its placements' bounds, then (pass 2) those that can still
    # reach the best move, highest bounds first
    for gx in range(ng_live):
        gi = g_sorted[gx]
        if mode == BY_RULER:
            # each ruler's own best: its search starts from nothing found
            rec[gi] = -1e18
            best_val = -1e18
            best_sec = -1
        if g_ub[gi] < best_val - EPS:
            break  # no placement of this ruler, or of any after it, can reach the best move
        shape = g_shape[gi]
        off = rules.pl_off[shape]
        nvalid = sh_n[shape]
        # per ruler: its tile counts, and the count terms of a placement landing `landed` tiles with
        # free pick sd (0: none; the ruler's tiles are fixed, only how many land varies)
        n_r = g_cnt[gi, 1]
        n_cm = g_cnt[gi, 2]
        n_in = g_cnt[gi, 4]
        n_pk = g_cnt[gi, 3]
        ach_g = g_ach[gi]
        five_g = rules.shape_five[shape] != 0
        for landed in range(6):
            for sd in range(5 if five_g else 1):
                t_term[landed, sd] = (
                    dc_max[min(n_cm + (1 if sd == 2 else 0), landed)]
                    + di_max[min(n_in + (1 if sd == 4 else 0), landed)]
                )
        # the free pick may be any district on the site board: a wildcard tile for the count bound
        for landed in range(6):
            tsm = t_term[landed, 0]
            if five_g:
                for si in range(4):
                    if site_pres & (1 << si):
                        tsm = max(tsm, t_term[landed, si + 1])
            t_smax[landed] = tsm
        nc_ = 0
        ub_lo = 1e18
        ub_hi = -1e18
        cut = best_val - EPS
        for vi in range(off, off + nvalid):
            p = v_p[vi]
            k = rules.pl_k[p]
            cs = rules.pl_star[p]
            # per district: at most as many tiles as it has (the free pick counted as any district)
            # and as the placement lands, each earning its district's points at most once per feature
            wild = 1 if cs >= 0 else 0
            landed = k + wild
            m_r = min(n_r + (wild & site_pres), landed)
            m_c = min(n_cm + (wild & (site_pres >> 1)), landed)
            m_p = min(n_pk + (wild & (site_pres >> 2)), landed)
            m_i = min(n_in + (wild & (site_pres >> 3)), landed)
            fb = (
                ach_g
                + wp
                * (
                    sp.park_touching * m_p
                    + sp.park_row * min(m_p, v_feat[vi, 3])
                    + sp.park_col * min(m_p, v_feat[vi, 4])
                )
                + wc * sp.com_isolated * min(m_c, v_feat[vi, 0])
                + wi * sp.ind_ring * min(m_i, v_feat[vi, 1])
                + (t_smax[landed] if cs >= 0 else t_term[k, 0])
            )
            if m_r + m_c > 0:
                fb += wp * sp.park_touching * v_feat[vi, 2]
            if m_r > 0:
                fb += rb_tab[v_urank[vi], m_r + v_tadj[vi]]
            if fb < cut:
                continue
            cand_g[nc_] = gi
            cand_p[nc_] = p
            cand_ub[nc_] = fb
            cand_tadj[nc_] = v_tadj[vi]
            cand_urank[nc_] = v_urank[vi]
            cand_vi[nc_] = vi
            nc_ += 1
            ub_lo = min(ub_lo, fb)
            ub_hi = max(ub_hi, fb)

        # pass 2: highest bounds first (bucket sort on the bound), so the best move is met early and
        # the rest fall below it
        width = max(1.0, (ub_hi - ub_lo) / BUCKETS) if nc_ > 0 else 1.0
        n_buckets = int((ub_hi - ub_lo) / width) + 1 if nc_ > 0 else 0
        b_start = ws.b_start[: n_buckets + 1]
        b_start[:] = 0
        for i in range(nc_):
            b_start[int((cand_ub[i] - ub_lo) / width) + 1] += 1
        for bk in range(n_buckets):
            b_start[bk + 1] += b_start[bk]
        sorted_i = ws.sorted_i
        for i in range(nc_):
            bk = int((cand_ub[i] - ub_lo) / width)
            sorted_i[b_start[bk]] = i
            b_start[bk] += 1
        # b_start[bk] now ends bucket bk; shift back so bucket bk is sorted_i[b_start[bk - 1]:b_start[bk]]
        for bk in range(n_buckets - 1, -1, -1):
            if mode < BY_PLACEMENT and ub_lo + (bk + 1) * width < best_val - EPS:
                break
            lo_i = b_start[bk - 1] if bk > 0 else 0
            for ii in range(lo_i, b_start[bk]):
                i = sorted_i[ii]
                gi = cand_g[i]
                p = cand_p[i]
                if mode >= BY_ORDER and p != t_p:
                    continue
                if mode == BY_PLACEMENT:
                    # each placement's own best: its search starts from nothing found
                    rec[p] = -1e18
                    best_val = -1e18
                    best_sec = -1
                shape = g_shape[gi]
                five = rules.shape_five[shape]
                ms = g_ms[gi]
                pres = g_pres[gi]
                newshape = g_new[gi]
                k = rules.pl_k[p]
                cs = rules.pl_star[p]
                landed = k + (1 if cs >= 0 else 0)
                sec_ub = 2 * landed + newshape
                ubv = cand_ub[i]
                if ubv < best_val - EPS or (ubv <= best_val + EPS and sec_ub < best_sec):
                    continue
                t_adj = cand_tadj[i]
                rbr = rb_tab[cand_urank[i]]
                vf = cand_vi[i]
                ft0 = v_feat[vf, 0]
                ft1 = v_feat[vf, 1]
                ft2 = v_feat[vf, 2]
                ft3 = v_feat[vf, 3]
                ft4 = v_feat[vf, 4]
                # the count and residential terms of a placement landing `landed` tiles with free pick sd
                # (0: none; the ruler's tiles are fixed, only how many land varies)
                n_r = g_cnt[gi, 1]
                n_cm = g_cnt[gi, 2]
                n_in = g_cnt[gi, 4]
                # padding cells (-1) read ubmax's last column, always 0
                um = ubmax[pres]
                ub_cell = (
                    um[rules.pl_cells[p, 0]]
                    + um[rules.pl_cells[p, 1]]
                    + um[rules.pl_cells[p, 2]]
                    + um[rules.pl_cells[p, 3]]
                )
                if cs < 0:
                    best_star = dc_max[min(n_cm, k)] + di_max[min(n_in, k)]
                    if min(n_r, k) > 0:
                        best_star += rbr[min(n_r, k) + t_adj]
                else:
                    # the free pick is one district: the best of its choices, not each part's best
                    best_star = -1e18
                    for si in range(4):
                        if site_pres & (1 << si) == 0:
                            continue
                        sd = si + 1
                        term = (
                            ub[cs, sd]
                            + dc_max[min(n_cm + (1 if sd == 2 else 0), landed)]
                            + di_max[min(n_in + (1 if sd == 4 else 0), landed)]
                        )
                        mr1 = min(n_r + (1 if sd == 1 else 0), landed)
                        if mr1 > 0:
                            term += rbr[mr1 + t_adj]
                        if term > best_star:
                            best_star = term
                ubv = min(ubv, g_ach[gi] + ub_cell + best_star)
                if ubv < best_val - EPS or (ubv <= best_val + EPS and sec_ub < best_sec):
                    continue
                # tighter bound: per district its best cells, when lower than per cell its best district
                ub_dist = 0.0
                c0 = rules.pl_cells[p, 0]
                c1 = rules.pl_cells[p, 1]
                c2 = rules.pl_cells[p, 2]
                c3 = rules.pl_cells[p, 3]
                for d in range(1, 5):
                    m = g_cnt[gi, d]
                    if m > 0:
                        ub_dist += _best_of(ub[c0, d], ub[c1, d], ub[c2, d], ub[c3, d], k, m)
                if ub_dist < ub_cell:
                    ubv = min(ubv, g_ach[gi] + ub_dist + best_star)
                if ubv < best_val - EPS or (ubv <= best_val + EPS and sec_ub < best_sec):
                    continue
                # every distinct assignment (and free pick) whose bound can reach the best: sequences
                # are walked in order, and a prefix whose bound fails skips all that share it
                for j in range(k):
                    c = rules.pl_cells[p, j]
                    cell[j] = c
                    for d in range(1, 5):
                        U[j, d] = ub[c, d]
                # restm[j, m]: the best the cells from j on can add using only the districts in mask m
                for m in range(16):
                    restm[k, m] = 0.0
                for j in range(k - 1, -1, -1):
                    c = cell[j]
                    m = pres
                    while m:
                        restm[j, m] = restm[j + 1, m] + ubmax[m, c]
                        m = (m - 1) & pres
                star_on = five and cs >= 0
                if star_on:
                    cell[k] = cs
                # pairs inside the placement: touching cells (commercial isolation), shared rows and
                # columns (park), so a prefix's bound can drop what two of its own tiles cannot both earn
                nloc = k + (1 if star_on else 0)
                for j in range(nloc):
                    cj = cell[j]
                    adjloc[j] = rules.pl_adj[p, j]
                    iso_b[j] = wc * sp.com_isolated if geo.nbr[cj] & C == 0 else 0.0
                    row_free[j] = rows_p & geo.row_bit[cj] == 0
                    col_free[j] = cols_p & geo.col_bit[cj] == 0
                wgt = float(g_w[gi])
                n_seq = N_SEQ[ms, k]
                for si in range(4 if star_on else 1):
                    sd = si + 1 if star_on else 0
                    if star_on and site_pres & (1 << si) == 0:
                        continue
                    nn = k + (1 if sd > 0 else 0)
                    sec = 2 * nn + newshape
                    base = g_ach[gi]
                    if sd > 0:
                        base += ub[cs, sd]
                        dist[k] = sd
                    mc_ = g_cnt[gi, 2] + (1 if sd == 2 else 0)
                    mi_ = g_cnt[gi, 4] + (1 if sd == 4 else 0)
                    mr_ = g_cnt[gi, 1] + (1 if sd == 1 else 0)
                    if k == 4:
                        base += wc * (sp.com_count[n_c + mc_] - sp.com_count[n_c])
                        base += wi * (sp.ind_count[n_i + mi_] - sp.ind_count[n_i])
                    else:
                        base += dc_max[min(mc_, nn)] + di_max[min(mi_, nn)]
                    rb_term = rbr[min(mr_, nn) + t_adj] if min(mr_, nn) > 0 else 0.0
                    base += rb_term
                    thr0 = (best_val + EPS if sec < best_sec else best_val - EPS) - base
                    if restm[0, pres] < thr0:
                        continue
                    # a bound per free pick: the placement's features with this pick's tile counts
                    mp_ = min(g_cnt[gi, 3] + (1 if sd == 3 else 0), nn)
                    mcc = min(mc_, nn)
                    fp = (
                        wp * (sp.park_touching * mp_ + sp.park_row * min(mp_, ft3) + sp.park_col * min(mp_, ft4))
                        + wc * sp.com_isolated * min(mcc, ft0)
                        + wi * sp.ind_ring * min(min(mi_, nn), ft1)
                    )
                    if min(mr_, nn) + mcc > 0:
                        fp += wp * sp.park_touching * ft2
                    if sd > 0:
                        fp -= ub[cs, sd]
                    if fp < thr0:
                        continue
                    cm0 = 0
                    pr0 = 0
                    pc0 = 0
                    if sd == 2:
                        cm0 = 1 << k
                    elif sd == 3:
                        if row_free[k]:
                            pr0 = geo.row_bit[cs]
                        if col_free[k]:
                            pc0 = geo.col_bit[cs]
                    q = 0
                    while q < n_seq:
                        if mode == BY_PICK and q != t_q:
                            q += 1
                            continue
                        thr = (best_val + EPS if sec < best_sec else best_val - EPS) - base
                        partial = 0.0
                        ok = True
                        cmask = cm0
                        cdead = 0
                        prow = pr0
                        pcol = pc0
                        for j in range(k):
                            d = SEQS[ms, k, q, j]
                            dist[j] = d
                            partial += U[j, d]
                            if d == 2:
                                a_ = adjloc[j] & cmask
                                if a_:
                                    a_ |= 1 << j
                                    a_ &= ~cdead
                                    while a_:
                                        jj = popcount(np.uint64((a_ & -a_) - 1))
                                        partial -= iso_b[jj]
                                        a_ &= a_ - 1
                                    cdead |= adjloc[j] & cmask | (1 << j)
                                cmask |= 1 << j
                            elif d == 3:
                                rb = geo.row_bit[cell[j]]
                                if row_free[j]:
                                    if prow & rb:
                                        partial -= wp * sp.park_row
                                    prow |= rb
                                cb = geo.col_bit[cell[j]]
                                if col_free[j]:
                                    if pcol & cb:
                                        partial -= wp * sp.park_col
                                    pcol |= cb
                            if partial + restm[j + 1, PRES_LEFT[ms, k, q, j]] < thr:
                                q = SKIP[ms, k, q, j]
                                ok = False
                                break
                        if not ok:
                            continue
                        if k == 0 and 0.0 < thr:
                            q += 1
                            continue
                        if sec == best_sec and base + partial <= best_val + EPS:
                            # at best a tie: it can only win on its random priority
                            if not _tie_beats(_tie_u(salt, ((p * 32 + q) * 8 + sd) * 32 + gi), wgt, best_key, best_u):
                                q += 1
                                continue
                        mR = np.uint64(0)
                        mC = np.uint64(0)
                        mP = np.uint64(0)
                        mI = np.uint64(0)
                        lr = 0
                        for j in range(nn):
                            bit = np.uint64(1) << np.uint64(cell[j])
                            d = dist[j]
                            if d == 1:
                                mR |= bit
                                lr |= 1 << j
                            elif d == 2:
                                mC |= bit
                            elif d == 3:
                                mP |= bit
                            else:
                                mI |= bit
                        # residential (memoised by the set of new residential cells)
                        if lr == 0:
                            g_r = 0.0
                        else:
                            h = np.int64((mR * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(53))
                            while memo_stamp[h] == stamp and memo_key[h] != mR:
                                h = (h + 1) & (n_memo - 1)
                            if memo_stamp[h] == stamp:
                                g_r = memo_r[h]
                            else:
                                g_r = float(
                                    _residential_after(
                                        lr, cell, adjloc, comp_size, order, ncomp, adjcl, lp, lt, sp2, cc_adj, cc_n
                                    )
                                    - cur_r
                                )
                                if memo_n < n_memo // 2:
                                    memo_r[h] = g_r
                                    memo_key[h] = mR
                                    memo_stamp[h] = stamp
                                    memo_n += 1
                        # the bound again with this residential gain in place of its bound
                        ub2 = base - rb_term + wr * g_r + partial
                        if ub2 < (best_val + EPS if sec < best_sec else best_val - EPS):
                            q += 1
                            continue
                        if (
                            sec == best_sec
                            and ub2 <= best_val + EPS
                            and not _tie_beats(_tie_u(salt, ((p * 32 + q) * 8 + sd) * 32 + gi), wgt, best_key, best_u)
                        ):
                            q += 1  # at best a tie, lost on its random priority
                            continue
                        nc_new = 0
                        ni_new = 0
                        for j in range(nn):
                            if dist[j] == 2:
                                nc_new += 1
                            elif dist[j] == 4:
                                ni_new += 1
                        # commercial §6.2
                        g_c = 0.0
                        if mC:
                            cn = C | mC
                            iso_new = 0
                            lost = np.uint64(0)
                            for j in range(nn):
                                if dist[j] == 2:
                                    nbj = geo.nbr[cell[j]]
                                    if nbj & cn == 0:
                                        iso_new += 1
                                    lost |= nbj & iso_c
                            g_c = float(
                                sp.com_count[n_c + nc_new]
                                - sp.com_count[n_c]
                                + sp.com_isolated * (iso_new - popcount(lost))
                            )
                        # park §6.3
                        g_p = 0.0
                        rc_new = mR | mC
                        if mP or rc_new:
                            rcn = R | C | rc_new
                            t = 0
                            rows = 0
                            cols = 0
                            touched = np.uint64(0)
                            for j in range(nn):
                                d = dist[j]
                                cj = cell[j]
                                if d == 3:
                                    if geo.nbr[cj] & rcn:
                                        t += 1
                                    rows |= geo.row_bit[cj]
                                    cols |= geo.col_bit[cj]
                                elif d == 1 or d == 2:
                                    touched |= geo.nbr[cj]
                            t += popcount(touched & lonely_p)
                            g_p = float(
                                sp.park_touching * t
                                + sp.park_row * popcount(np.uint64(rows & ~rows_p))
                                + sp.park_col * popcount(np.uint64(cols & ~cols_p))
                            )
                        # industrial §6.4
                        g_i = 0.0
                        if mI:
                            g_i = float(
                                sp.ind_ring * popcount(mI & geo.ring) + sp.ind_count[n_i + ni_new] - sp.ind_count[n_i]
                            )
                        val = wr * g_r + wc * g_c + wp * g_p + wi * g_i + g_ach[gi] - tree_ub
                        if rules.ach_on:
                            after = cur_p + g_p >= tree_bar
                            val += wa * rules.tree_pts * ((1 if after else 0) - (1 if tree_before else 0))
                        if mode != BEST:
                            score = val + SEC_UNIT * sec
                            r_i = (
                                gi
                                if mode == BY_RULER
                                else (p if mode == BY_PLACEMENT else (q if mode == BY_ORDER else sd))
                            )
                            rec[r_i] = max(rec[r_i], score)
                            if mode >= BY_ORDER:
                                q += 1  # every order and free pick of the placement, none pruned
                                continue
                        # compare (value, tie-break) and keep a uniformly random one among exact ties: its
                        # priority is drawn only at an exact tie (no logarithm), which keeps the best value
                        if _beats(val, sec, best_val, best_sec, False):  # better on value or tie-break
                            best_val = val
                            best_sec = sec
                            u = _tie_u(salt, ((p * 32 + q) * 8 + sd) * 32 + gi)
                            best_key = np.log(u) / wgt
                            best_u = u if wgt == 1.0 else np.exp(best_key)
                            b_kind, b_group, b_p, b_seq, b_star = PLACE, gi, p, q, sd
                        elif _beats(val, sec, best_val, best_sec, True):  # neither better nor worse: a tie
                            u = _tie_u(salt, ((p * 32 + q) * 8 + sd) * 32 + gi)
                            if _tie_beats(u, wgt, best_key, best_u):
                                best_key = np.log(u) / wgt
                                best_u = u if wgt == 1.0 else np.exp(best_key)
                                b_kind, b_group, b_p, b_seq, b_star = PLACE, gi, p, q, sd
                        q += 1

    # §9.2 discard-for-tile: any corner ruler, one tile of any type on any empty cell
    if rules.discard_for_tile and n_corner > 0 and (mode <= BY_RULER or (mode == BY_PLACEMENT and t_slot >= N_EDGE)):
        for c in range(cells):
            bit = np.uint64(1) << np.uint64(c)
            if filled & bit:
                continue
            for d in range(1, 5):
                mR = bit if d == 1 else np.uint64(0)
                mC = bit if d == 2 else np.uint64(0)
                mP = bit if d == 3 else np.uint64(0)
                mI = bit if d == 4 else np.uint64(0)
                r2, c2, p2, i2 = score_masks(R | mR, C | mC, P | mP, I | mI, geo, sp)
                val = wr * (r2 - cur_r) + wc * (c2 - cur_c) + wp * (p2 - cur_p) + wi * (i2 - cur_i)
                if rules.ach_on:
                    after = p2 >= tree_bar
                    val += wa * rules.tree_pts * ((1 if after else 0) - (1 if tree_before else 0))
                sec = 2
                if mode != BEST:
                    rec[n_pl + 4 * c + d - 1] = val + SEC_UNIT * sec
                wgt = float(n_corner)
                key = _tie_key(salt, 2 + 4 * (c * 8 + d), wgt)
                if _beats(val, sec, best_val, best_sec, key > best_key):
                    best_val, best_sec, best_key = val, sec, key
                    best_u = np.exp(key)
                    b_kind, b_p, b_star = DISCARD_FOR_TILE, c, d

    return b_kind, b_group, b_p, b_seq, b_star, n_corner


@nb.njit(cache=True, error_model="numpy", inline="always")  # no library level above greedy_search (issue 47)
def greedy_move(st, rules, geo, sp, w, rng, mv, ws):
    """Fill ``mv`` with the greedy move (weights ``w``: residential, commercial, park, industrial,
    achievements) for the seat to move, using the scratch arrays ``ws`` (:func:`workspace`). See the
    module docstring of :mod:`.agents` for the objective: :func:`greedy_search` finds it, then the
    slot among those holding the chosen ruler (and the off-table free pick's district) are drawn."""
    salt = np.uint64(int(rng.random() * 9007199254740992.0)) * np.uint64(2654435761) + np.uint64(1)
    b_kind, b_group, b_p, b_seq, b_star, n_corner = greedy_search(
        st, rules, geo, sp, w, salt, ws, np.int64(BEST), np.int64(0), np.int64(0), np.int64(0), ws.cand_ub
    )
    slot_group = ws.slot_group
    g_w = ws.g_w
    g_ms = ws.g_ms
    g_shape = ws.g_shape
    mv[:] = 0
    mv[0] = b_kind
    if b_kind < 0:
        # every slot is empty: no ruler to draft, the turn is lost
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
            # a star off the table still takes a free pick (Q11): any site cell's district
            mv[7] = b_star if b_star > 0 else st.site[below(rng, SITE)]


def workspace(rules, cells: int) -> Workspace:
    """Scratch arrays for :func:`greedy_move`, allocated once and reused move after move, with the
    placements' features computed here (:func:`~.scoring.placement_features`); the compiled paths
    take them from the rule table instead (:func:`workspace_for`)."""
    size = int(round(cells**0.5))
    return scratch(rules, cells, placement_features(rules.pl_mask, size))


@nb.njit(cache=True, inline="always")  # a thin wrapper: no library level of its own (issue 47)
def workspace_for(T):
    """:func:`workspace` for the rule table ``T`` (:class:`~.kernel.Compiled`), whose placement
    features were computed once when the table was compiled: only the scratch is allocated."""
    return scratch(T.rules, T.lay.cells, T.pl_feat)


@nb.njit(cache=True)
def scratch(rules, cells, feat):
    """The :class:`Workspace` of :func:`greedy_move`: fresh scratch arrays beside the placements'
    features ``feat`` (:class:`~.scoring.PlacementFeatures`, read only, shared)."""
    per_shape = 0
    for s in range(rules.n_shapes):
        per_shape = max(per_shape, rules.pl_off[s + 1] - rules.pl_off[s])
    n_max = per_shape * N_SLOTS
    n_pl = rules.pl_mask.shape[0]
    return Workspace(
        np.zeros(32, np.uint64),  # comp_mask
        np.zeros(32, np.int64),  # comp_size
        np.zeros(32, np.int64),  # order
        np.zeros(cells + 1, np.uint64),  # adjcl (a last entry of 0)
        np.zeros(5, np.uint64),  # cc_adj
        np.zeros(5, np.int64),  # cc_n
        np.zeros(6),  # dc_max
        np.zeros(6),  # di_max
        np.zeros((cells, 5)),  # ub
        np.zeros((16, cells + 1)),  # ubmax (a last column of zeros)
        np.zeros((4, cells + 6)),  # rb_tab
        np.zeros(N_SLOTS, np.int64),  # g_shape
        np.zeros(N_SLOTS, np.int64),  # g_ms
        np.zeros(N_SLOTS, np.int64),  # g_w
        np.zeros((N_SLOTS, 5), np.int64),  # g_cnt
        np.zeros(N_SLOTS, np.int64),  # slot_group
        np.zeros(5, np.int64),  # cnt
        np.zeros(2048),  # memo_r
        np.zeros(2048, np.int64),  # memo_stamp
        np.zeros(2048, np.uint64),  # memo_key
        np.zeros(1, np.int64),  # memo_turn
        np.zeros(5, np.int64),  # dist
        np.zeros(5, np.int64),  # cell
        np.zeros((5, 5)),  # U
        np.zeros(5, np.int64),  # adjloc
        np.zeros(5),  # iso_b
        np.zeros(5, np.int64),  # row_free
        np.zeros(5, np.int64),  # col_free
        np.zeros((5, 16)),  # restm
        np.zeros(N_SLOTS, np.int64),  # g_pres
        np.zeros(N_SLOTS),  # g_ach
        np.zeros(N_SLOTS, np.int64),  # g_new
        np.zeros(n_max),  # cand_ub
        np.zeros(n_max),  # cand_cell
        np.zeros(n_max),  # cand_star
        np.zeros(n_max, np.int64),  # cand_g
        np.zeros(n_max, np.int64),  # cand_p
        np.zeros(n_max, np.int64),  # cand_tadj
        np.zeros(n_max, np.int64),  # cand_urank
        np.zeros(n_max, np.int64),  # cand_vi
        np.zeros(n_max, np.int64),  # sorted_i
        np.zeros(N_SLOTS, np.int64),  # g_sorted
        np.zeros(n_pl, np.int64),  # v_p
        np.zeros(n_pl, np.int64),  # v_tadj
        np.zeros(n_pl, np.int64),  # v_urank
        np.zeros((n_pl, 5), np.int64),  # v_feat
        np.zeros(6),  # t_smax
        feat.rows,
        feat.cols,
        feat.ring,
        feat.spread,
        np.zeros(rules.n_shapes, np.int64),  # sh_n
        np.zeros((rules.n_shapes, 7), np.int64),  # sh_max
        np.zeros(N_SLOTS),  # g_ub
        np.zeros(BUCKETS + 2, np.int64),  # b_start
        np.zeros((6, 5)),  # t_term
    )
