"""Águeda agents, compiled with numba: ``random``, ``greedy`` and ``lookahead``.

random
    The interface's uniform agent (:func:`balancer.core.kernel.uniform_move`): each decision of a
    turn (:mod:`.kernel`: the line, the row, the order of the umbrellas, the tourist option) drawn
    uniformly among its legal values, one ``rng.random()`` each.

greedy
    Tries every line it may take, every row (full rows once: they all send every umbrella back to
    the bag) and every order of the umbrellas that lands differently, and for each every tourist
    option; plays the one of highest value (exact ties broken uniformly at random: first among
    placements, then among that placement's tourist options). The value of a turn
    (weights ``agents.greedy`` in the config) is

        tourist points scored now + mural points gained (Final Scoring 1, as if the game ended now)
        + flip x mural tiles flipped + unlock x tourists unlocked
        + fill x umbrellas placed (each is an empty space less, -1 at the end)
        + coin x coins gained (minus coin x coins spent)
        + suitcase x tourists in suitcases after the turn (what a later turn can attract)
        + tile_match x placed umbrellas of a colour of that row's tourist tile (later tourist points)
        + shops x change of both shop cards' points, scored on the board as it would stand.

lookahead
    Takes the greedy agent's ``agents.lookahead.candidates`` best moves (one per placement, its
    best tourist option) and plays each out ``rollouts`` times to the end of the game with every
    seat greedy and the bag's draws from the agent's own generator; plays the move with the best
    mean final margin (own score minus the best other score; solo: minus the AI's score). Before each
    rollout the face-down tour-guide cards not yet revealed are reshuffled with the agent's generator
    (:func:`hide_deck`, as the kernel's ``determinize`` does for ``mcts``): the agent never reads
    their true order.

Both plan a whole turn (an int64[MOVE_LEN] of :mod:`.rules`); the interface (:mod:`.kernel`) plays
it at once on the fast path, or hands it out decision by decision to the Python protocol.
``greedy_search`` can also be held to the decisions already taken in a turn (``only_line``,
``only_row``, ``only_perm``): the best turn among those that agree with them, which is the
kernel's rollout policy.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .config import AguedaConfig
from .rules import (
    ATTRACT_ONE,
    ATTRACT_TWO,
    G_BANK,
    G_DECK,
    G_OVER,
    G_SEAT,
    MAX_LINE,
    MOVE_LEN,
    MV_K,
    MV_LINE,
    MV_ORDER,
    MV_ROW,
    MV_TCOL,
    MV_TOURIST,
    MV_TROW,
    N_PERMS,
    PERMS,
    ROWS,
    TAKE_BREAK,
    State,
    apply_move,
    below,
    line_open,
    line_umbrellas,
    placing,
    shuffle,
)
from .scoring import COMPONENTS, ai_score, card_points, final_rows, row_raw

AGENTS: tuple[str, ...] = ("random", "greedy", "lookahead")
RANDOM, GREEDY, LOOKAHEAD = 0, 1, 2
W_FLIP, W_UNLOCK, W_FILL, W_COIN, W_SUITCASE, W_TILE, W_SHOPS = range(7)
N_WEIGHTS = 7
MAX_CANDIDATES = 16 * 3 * 24
"""Placements the greedy search can store: lines x rows x orders, with room for 16 lines."""
FREE = -2
"""``greedy_search``'s ``only_*`` value for a decision not yet taken (-1 is a line: no line)."""


def agent_params(cfg: AguedaConfig, name: str) -> tuple[int, np.ndarray]:
    """(agent kind, greedy weights float64[N_WEIGHTS]) of an agent name; ValueError for an unknown name."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(AGENTS)}")
    g = cfg.agents.greedy
    weights = np.array([g.flip, g.unlock, g.fill, g.coin, g.suitcase, g.tile_match, g.shops], np.float64)
    return AGENTS.index(name), weights


# --------------------------------------------------------------------------- greedy


@nb.njit(cache=True, inline="always")
def _offer(v, best, ties, rng):
    """Reservoir step for exact ties: (take it?, new best, new tie count)."""
    if v > best:
        return True, v, 1
    if v == best:
        ties += 1
        return below(rng, ties) == 0, best, ties
    return False, best, ties


@nb.njit(cache=True)
def greedy_search(
    st,
    rules,
    w,
    rng,
    best_mv,
    store,
    cand_mv,
    cand_val,
    only_line,
    only_row,
    only_perm,
    only_tourist,
):
    """The greedy agent's move for the seat to move, written to ``best_mv``. With ``store``, every
    distinct placement with its best tourist option also goes to ``cand_mv``/``cand_val`` (for the
    lookahead agent). ``only_line``/``only_row``/``only_perm`` (FREE: any) restrict the search to
    turns with that line (-1: none), board row and order (``PERMS[k, only_perm]`` of the line's
    umbrellas); ``only_tourist`` to one tourist option, numbered as the kernel's tourist decision
    (0 the break, 1 + 3 r + j attract 1 to row r scoring its colour j, 3 + 3 r attract 2; a
    placement without it is valued -1e300). Returns the number of placements tried. Value of a
    move: module docstring. Every caller passes ``store`` as ``np.bool_`` and the ``only_*`` as
    ``np.int64``, never a literal ``True``/``False``/``FREE``: numba compiles one specialisation per
    argument type, and a literal is a type of its own (issue 47: five copies of this search were
    compiled; now one per generator type, numpy's and the move scores' FixedDraws)."""
    seat = st.g[G_SEAT]
    C = rules.n_colours
    L = rules.row_len
    lpr = rules.locked_per_row
    market, line_cells, line_len, line_coins = st.market, rules.line_cells, rules.line_len, rules.line_coins
    brush, mural_row, mural_pts, tile_col = rules.brush, rules.mural_row, rules.mural_pts, rules.tile_col
    board, fill, flipped, unlocked = st.board[seat], st.fill[seat], st.flipped[seat], st.unlocked[seat]
    occ, tile_at = st.occ[seat], st.tile_at[seat]
    n_lines = line_len.shape[0]
    cnt = np.zeros((ROWS, C), np.int64)
    for r in range(ROWS):
        for j in range(fill[r]):
            cnt[r, board[r, j]] += 1
    f0 = 0
    for c in range(C):
        f0 += flipped[c]
    coins = st.coins[seat]
    occ_total = 0
    for r in range(ROWS):
        occ_total += occ[r]
    # the two shop cards: their parameters and each row's raw value now (scoring.row_raw)
    use_shops = w[W_SHOPS] != 0.0
    sk = np.zeros(2, np.int64)
    sp = np.zeros(2, np.int64)
    sper = np.zeros(2, np.int64)
    sal = np.zeros(2, np.int64)
    scap = np.zeros(2, np.int64)
    smask = np.zeros(2, np.int64)
    smarked = np.zeros(2, np.bool_)
    raw = np.zeros((2, ROWS), np.int64)
    s0 = 0
    for i in range(2):
        card = st.shops[i]
        sk[i], sp[i], sper[i] = rules.card_kind[card], rules.card_points[card], rules.card_per[card]
        sal[i], scap[i], smask[i] = rules.card_at_least[card], rules.card_max[card], st.shop_mask[i]
        smarked[i] = rules.card_markers[card] > 0
        for r in range(ROWS):
            raw[i, r] = row_raw(sk[i], smask[i], smarked[i], board[r], fill[r])
        s0 += card_points(sk[i], sp[i], sper[i], sal[i], scap[i], L, raw[i, 0], raw[i, 1], raw[i, 2], coins, occ_total)
    any_line = False
    for line in range(n_lines):
        if line_open(market, line_cells, line_len, line_coins, coins, line):
            any_line = True
    u = np.zeros(MAX_LINE, np.int64)
    order = np.zeros(MAX_LINE, np.int64)
    flips = np.zeros(C, np.int64)
    best = -1e300
    ties = 0
    n_cand = 0
    for li in range(n_lines if any_line else 1):
        line = li if any_line else -1
        if any_line and not line_open(market, line_cells, line_len, line_coins, coins, line):
            continue
        if only_line != FREE and line != only_line:
            continue
        k = line_umbrellas(market, line_cells, line_len, line, u) if line >= 0 else 0
        d = line_coins[line, k] if line >= 0 else 0
        coin_after = coins + d if d <= 0 else coins + min(d, st.g[G_BANK])
        seen_full = False
        for row in range(ROWS):
            full = fill[row] == L
            if k == 0 and row > 0:
                break  # nothing to place: every row is the same
            if only_row != FREE and row != only_row:
                continue
            if full:
                if seen_full:
                    continue
                seen_full = True
            fr = fill[row]
            placed = min(k, L - fr)
            for p in range(N_PERMS[k]):
                if only_perm != FREE and p != only_perm:
                    continue
                dup = False
                for q in range(p):
                    same = True
                    for j in range(placed):
                        if u[PERMS[k, q, j]] != u[PERMS[k, p, j]]:
                            same = False
                            break
                    if same:
                        dup = True
                        break
                if dup:
                    continue
                for j in range(k):
                    order[j] = u[PERMS[k, p, j]]
                placed, nf, done = placing(fr, L, brush[row], flipped, unlocked, mural_row, order, k, flips)
                tile = tile_at[row]
                match = 0
                for j in range(placed):
                    if order[j] == tile_col[tile, 0] or order[j] == tile_col[tile, 1]:
                        match += 1
                shop_d = 0
                if use_shops and (placed > 0 or coin_after != coins):
                    for j in range(placed):
                        board[row, fr + j] = order[j]
                    for i in range(2):
                        r0, r1, r2 = raw[i, 0], raw[i, 1], raw[i, 2]
                        v = row_raw(sk[i], smask[i], smarked[i], board[row], fr + placed)
                        if row == 0:
                            r0 = v
                        elif row == 1:
                            r1 = v
                        else:
                            r2 = v
                        shop_d += card_points(
                            sk[i], sp[i], sper[i], sal[i], scap[i], L, r0, r1, r2, coin_after, occ_total
                        )
                    shop_d -= s0
                    for j in range(placed):
                        board[row, fr + j] = -1
                base = (
                    mural_pts[f0 + nf]
                    - mural_pts[f0]
                    + w[W_FLIP] * nf
                    + w[W_UNLOCK] * done * lpr
                    + w[W_FILL] * placed
                    + w[W_COIN] * (coin_after - coins)
                    + w[W_TILE] * match
                    + w[W_SHOPS] * shop_d
                )
                suit = st.suitcase[seat] + done * lpr
                # tourist options: the best of this placement (ties uniformly)
                pb = base + w[W_SUITCASE] * (suit + occ_total)
                if only_tourist != FREE and only_tourist != 0:
                    pb = -1e300
                pt, ptr, ptc = TAKE_BREAK, -1, -1
                pties = 1
                if suit >= 1:
                    for tr in range(ROWS):
                        if occ[tr] != 0:
                            continue
                        t2 = tile_at[tr]
                        c1 = tile_col[t2, 0]
                        c2 = tile_col[t2, 1]
                        n1 = cnt[tr, c1]
                        n2 = cnt[tr, c2]
                        if tr == row:
                            for j in range(placed):
                                if order[j] == c1:
                                    n1 += 1
                                if order[j] == c2 and c2 != c1:
                                    n2 += 1
                        for ci in range(2 if c2 != c1 else 1):  # attract 1, scoring one colour
                            if only_tourist != FREE and only_tourist != 1 + 3 * tr + ci:
                                continue
                            take, pb, pties = _offer(
                                base + (n2 if ci else n1) + w[W_SUITCASE] * (suit - 1), pb, pties, rng
                            )
                            if take:
                                pt, ptr, ptc = ATTRACT_ONE, tr, (c2 if ci else c1)
                        if suit >= 2 and (only_tourist == FREE or only_tourist == 3 + 3 * tr):
                            v3 = base + n1 + (n2 if c2 != c1 else 0) + w[W_SUITCASE] * (suit - 2)
                            take, pb, pties = _offer(v3, pb, pties, rng)
                            if take:
                                pt, ptr, ptc = ATTRACT_TWO, tr, -1
                take, best, ties = _offer(pb, best, ties, rng)
                if take or store:
                    tgt = best_mv
                    if store:
                        tgt = cand_mv[n_cand]
                        cand_val[n_cand] = pb
                    tgt[MV_LINE] = line
                    tgt[MV_ROW] = row
                    tgt[MV_TOURIST] = pt
                    tgt[MV_TROW] = ptr
                    tgt[MV_TCOL] = ptc
                    tgt[MV_K] = k
                    for j in range(MAX_LINE):
                        tgt[MV_ORDER + j] = order[j] if j < k else -1
                    if store and take:
                        best_mv[:] = tgt
                n_cand += 1
    return n_cand


# --------------------------------------------------------------------------- lookahead


@nb.njit(cache=True)
def clone(st):
    """A deep copy of a State inside compiled code."""
    return State(
        st.market.copy(),
        st.bag.copy(),
        st.board.copy(),
        st.fill.copy(),
        st.flipped.copy(),
        st.unlocked.copy(),
        st.suitcase.copy(),
        st.tile_at.copy(),
        st.occ.copy(),
        st.coins.copy(),
        st.stats.copy(),
        st.shops.copy(),
        st.shop_mask.copy(),
        st.deck.copy(),
        st.ai.copy(),
        st.g.copy(),
    )


@nb.njit(cache=True)
def margin(st, rules, seat):
    """Final score of ``seat`` minus the best other score (solo: minus the AI's score)."""
    rows = final_rows(st, rules)
    n = rules.n_players
    own = rows[seat, 0] + rows[seat, 1] + rows[seat, 2] + rows[seat, 3]
    if n == 1:
        return own - ai_score(st, rules)
    other = -(1 << 40)
    for s in range(n):
        if s != seat:
            v = rows[s, 0] + rows[s, 1] + rows[s, 2] + rows[s, 3]
            if v > other:
                other = v
    return own - other


@nb.njit(cache=True)
def hide_deck(st, rng):
    """Reshuffle the tour-guide cards not yet revealed, sorted first, with ``rng``: what the seat to
    move cannot see, resampled as the kernel's ``determinize`` resamples it (the same draws), so that
    a rollout depends only on what the seat sees."""
    rest = st.deck[st.g[G_DECK] :]
    rest.sort()
    shuffle(rest, rest.shape[0], rng)


@nb.njit(cache=True, inline="always")
def lookahead_move(st, rules, w, candidates, rollouts, rng, mv, cand_mv, cand_val):
    """The lookahead agent's move (module docstring), written to ``mv``."""
    seat = st.g[G_SEAT]
    free = np.int64(FREE)
    n = greedy_search(st, rules, w, rng, mv, np.bool_(True), cand_mv, cand_val, free, free, free, free)
    if n <= 1:
        return
    idx = np.argsort(-cand_val[:n], kind="mergesort")
    tmp = np.zeros(MOVE_LEN, np.int64)
    best = -1e300
    for i in range(min(candidates, n)):
        c = idx[i]
        total = 0.0
        for _ in range(rollouts):
            cp = clone(st)
            hide_deck(cp, rng)
            apply_move(cp, rules, cand_mv[c], rng)
            while cp.g[G_OVER] == 0:
                greedy_search(
                    cp, rules, w, rng, tmp, np.bool_(False), cand_mv[n:], cand_val[n:], free, free, free, free
                )
                apply_move(cp, rules, tmp, rng)
            total += margin(cp, rules, seat)
        if total > best:
            best = total
            mv[:] = cand_mv[c]


# --------------------------------------------------------------------------- one turn


@nb.njit(cache=True, inline="always")
def choose_move(st, rules, kind, w, candidates, rollouts, rng, mv, cand_mv, cand_val):
    """Agent ``kind`` (GREEDY or LOOKAHEAD) plans the whole turn of the seat to move into ``mv``.
    Inlined into its callers, as :func:`lookahead_move` is: a compiled function of its own would
    be one more level at which numba optimises the whole search again (issue 47)."""
    if kind == GREEDY:
        free = np.int64(FREE)
        greedy_search(st, rules, w, rng, mv, np.bool_(False), cand_mv, cand_val, free, free, free, free)
    else:
        lookahead_move(st, rules, w, candidates, rollouts, rng, mv, cand_mv, cand_val)


def workspace() -> tuple[np.ndarray, np.ndarray]:
    """Candidate buffers for the greedy and lookahead searches."""
    return np.zeros((MAX_CANDIDATES, MOVE_LEN), np.int64), np.zeros(MAX_CANDIDATES, np.float64)


assert len(COMPONENTS) == 4
