"""Águeda rules: state, setup, legal moves and transitions (rulebook: "Setup" to "Game End"; "Solo Mode").

Everything here is compiled with numba; the state is a handful of small integer arrays (views into
one int64 buffer, :func:`state_views`) so that a whole game runs without touching Python objects.
Numbers come from the config (via :func:`compile_rules`), never from this file. Legality lives in
the compiled game interface (:mod:`.kernel`), which splits a turn into decisions and plays each
complete turn with :func:`apply_move`.

Colours are codes 0..C-1 (the order of ``umbrellas.colours``); -1 is an empty space. Market cells
are numbered row by row (``r * columns + c``, 0-based), the order in which the market is refilled.
Seats are 0-based here (seat 1 of a results table is 0).

A whole turn (what :func:`apply_move` plays; the kernel assembles it from the player's decisions) is
an int64[MOVE_LEN]:
``[line, row, tourist, tourist_row, tourist_colour, k, c_0 .. c_{k-1}]``
  line            the market line taken (index into ``market.lines``), or -1 when no line can be taken
                  (every line empty or unaffordable; the turn then only attracts tourists or rests);
  row             the board row (0..2) the umbrellas go into, from its leftmost empty space; a full
                  row is allowed (every umbrella then goes back into the bag);
  c_0..c_{k-1}    the umbrellas taken, in the order they are placed (a permutation of the line's);
  tourist         TAKE_BREAK, ATTRACT_ONE or ATTRACT_TWO (Attract Tourists);
  tourist_row     the board row whose tourist tile receives the tourists (-1 for a break);
  tourist_colour  ATTRACT_ONE: the tile colour scored; else -1.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from .config import SHOP_KINDS, TAKE_KINDS, AguedaConfig

TAKE_BREAK, ATTRACT_ONE, ATTRACT_TWO = 0, 1, 2
MV_LINE, MV_ROW, MV_TOURIST, MV_TROW, MV_TCOL, MV_K, MV_ORDER = range(7)
MAX_LINE = 4
MOVE_LEN = MV_ORDER + MAX_LINE
ROWS = 3
# per-seat statistics
(ST_TOURIST_PTS, ST_TURNS, ST_COINS_GAINED, ST_COINS_SPENT, ST_RETURNED, ST_ATTRACTED, ST_BREAKS, ST_TAKEN) = range(8)
N_STATS = 8
# game-wide counters
G_SEAT, G_TRIGGER, G_OVER, G_BANK, G_DECK, G_AI_PTS, G_MOVES = range(7)
N_G = 7
# shop-card kinds (config.SHOP_KINDS order) and tour-guide takes (config.TAKE_KINDS order)
SK_UMBRELLAS, SK_ROWS_WITH, SK_ADJACENT, SK_VARIED, SK_COMPLETED, SK_COINS, SK_TOURISTS = range(7)
TK_LINE, TK_ROW, TK_COLUMN, TK_MOST = range(4)
assert len(SHOP_KINDS) == 7 and len(TAKE_KINDS) == 4


def _permutations() -> np.ndarray:
    """PERMS[k, p, :k]: the k! orders of k items (-1 padding), for k up to MAX_LINE."""
    from itertools import permutations

    out = np.full((MAX_LINE + 1, 24, MAX_LINE), -1, np.int64)
    for k in range(MAX_LINE + 1):
        for p, perm in enumerate(permutations(range(k))):
            out[k, p, :k] = perm
    return out


PERMS = _permutations()
N_PERMS = np.array([1, 1, 2, 6, 24], np.int64)


class Rules(NamedTuple):
    """A variant compiled for one player count: every number the rules use, as arrays."""

    n_players: int
    solo: bool
    n_colours: int
    per_colour: int
    market_rows: int
    market_cols: int
    line_cells: np.ndarray  # int64[lines, MAX_LINE]: market cells of each line, -1 padding
    line_len: np.ndarray  # int64[lines]
    coins_by_count: np.ndarray  # int64[MAX_LINE + 1]: +gain / -cost of a line holding that many umbrellas
    line_coins: np.ndarray  # int64[lines, MAX_LINE + 1]: +gain / -cost of line l holding k umbrellas (market.coins_by)
    bank: int  # coins in the bank before setup
    start_coins: int
    row_len: int
    brush: np.ndarray  # int8[3, row_len]: 1 on a paintbrush space
    mural_row: np.ndarray  # int64[C]: the mural row of each colour's tile
    mural_pts: np.ndarray  # int64[C+1]: points for that many flipped tiles
    tile_col: np.ndarray  # int64[3, 2]: colours of tourist tile t (t = its setup row)
    in_suitcases: int
    locked_per_row: int
    empty_pts: int  # points per empty space (<= 0)
    bag_trigger: bool
    max_turns: int  # the safety stop: turns of all seats together (not a rule)
    card_kind: np.ndarray  # int64[cards] (SK_*)
    card_markers: np.ndarray  # int64[cards]
    card_points: np.ndarray
    card_at_least: np.ndarray
    card_per: np.ndarray
    card_max: np.ndarray  # int64[cards]: cap, -1 none
    fixed: np.ndarray  # int64[2]: shop cards of every game, or -1 -1 to draw them
    deck_take: np.ndarray  # int64[D] (TK_*)
    deck_index: np.ndarray  # int64[D]: 0-based line/row/column
    deck_ppu: np.ndarray  # int64[D]: AI points per umbrella taken
    deck_points: np.ndarray  # int64[D]: AI flat points
    ai_points: int  # Solo End Game Scoring card, chosen difficulty
    ai_per_umbrella: int
    ai_group_k: int
    ai_group_pts: int


class State(NamedTuple):
    """One game in progress (all arrays are mutated in place by :func:`apply_move`). Every field is
    an int64 view into one buffer (:func:`state_views`), so the buffer is the whole position."""

    market: np.ndarray  # int64[M]: colour per market cell, -1 empty
    bag: np.ndarray  # int64[C]: umbrellas of each colour in the bag
    board: np.ndarray  # int64[n, 3, row_len]: colour per space, -1 empty
    fill: np.ndarray  # int64[n, 3]: filled spaces of each row (always a prefix)
    flipped: np.ndarray  # int64[n, C]: 1 where that colour's mural tile is flipped
    unlocked: np.ndarray  # int64[n, 3]: 1 where the mural row's tourist has been unlocked
    suitcase: np.ndarray  # int64[n]: tourists in suitcases
    tile_at: np.ndarray  # int64[n, 3]: tourist tile beside each board row
    occ: np.ndarray  # int64[n, 3]: tourists standing on the tile beside each board row
    coins: np.ndarray  # int64[n]
    stats: np.ndarray  # int64[n, N_STATS]
    shops: np.ndarray  # int64[2]: shop cards in play
    shop_mask: np.ndarray  # int64[2]: bit c set when a shop marker of colour c is on that card
    deck: np.ndarray  # int64[D]: tour-guide deck order (solo)
    ai: np.ndarray  # int64[C]: umbrellas the solo AI took, by colour
    g: np.ndarray  # int64[N_G]: seat to move, end trigger seat, over, bank, deck position, AI card points, moves


def line_coins(coins_by_count: np.ndarray, line_len: np.ndarray, coins_by: str) -> np.ndarray:
    """The coins (+gain / -cost) of taking line l while it holds k umbrellas, int64[lines, MAX_LINE + 1]
    (Pick Umbrellas, ``market.coins_by``): ``coins_by_count[k]`` under umbrellas_held, the count of
    the line's full length ``coins_by_count[line_len[l]]`` for every k >= 1 under line_length."""
    out = np.zeros((len(line_len), MAX_LINE + 1), np.int64)
    for li, n in enumerate(line_len):
        for k in range(1, MAX_LINE + 1):
            out[li, k] = coins_by_count[int(n) if coins_by == "line_length" else k]
    return out


def compile_rules(cfg: AguedaConfig, n_players: int) -> Rules:
    """The variant's numbers as arrays for ``n_players`` (1 = solo). Raises ValueError for an
    unsupported player count or a market line longer than MAX_LINE."""
    if n_players not in cfg.player_counts:
        noun = "player is" if n_players == 1 else "players is"
        raise ValueError(
            f"{n_players} {noun} not supported by variant {cfg.variant!r} "
            f"(supported: {', '.join(map(str, cfg.player_counts))})"
        )
    m = cfg.market
    n_lines = len(m.lines)
    line_cells = np.full((n_lines, MAX_LINE), -1, np.int64)
    line_len = np.zeros(n_lines, np.int64)
    coins_by_count = np.zeros(MAX_LINE + 1, np.int64)
    for k, d in m.coins_by_umbrellas.items():
        if 1 <= k <= MAX_LINE:
            coins_by_count[k] = d
    for i, line in enumerate(m.lines):
        if len(line.cells) > MAX_LINE:
            raise ValueError(f"market.lines[{i}]: at most {MAX_LINE} cells")
        for j, (r, c) in enumerate(line.cells):
            line_cells[i, j] = (r - 1) * m.columns + (c - 1)
        line_len[i] = len(line.cells)
    L = cfg.board.row_length
    brush = np.zeros((ROWS, L), np.int8)
    for r, spaces in enumerate(cfg.board.paintbrush):
        for s in spaces:
            brush[r, s - 1] = 1
    C = len(cfg.umbrellas.colours)
    mural_row = np.zeros(C, np.int64)
    for r, pair in enumerate(cfg.mural.rows):
        for name in pair:
            mural_row[cfg.colour(name)] = r
    mural_pts = np.zeros(C + 1, np.int64)
    for k in range(C + 1):  # the highest threshold reached
        best = 0
        for at, pts in cfg.mural.points.items():
            if k >= at and at >= best:
                best = at
                mural_pts[k] = pts
    tile_col = np.array([[cfg.colour(a), cfg.colour(b)] for a, b in cfg.tourists.tiles], np.int64)
    cards = cfg.shops.cards
    names = [c.name for c in cards]
    fixed = np.array([names.index(f) for f in cfg.shops.fixed] if cfg.shops.fixed else [-1, -1], np.int64)
    deck = cfg.solo.deck
    end = cfg.solo.end_card[cfg.solo.difficulty]
    return Rules(
        n_players=n_players,
        solo=n_players == 1,
        n_colours=C,
        per_colour=cfg.umbrellas.per_colour,
        market_rows=m.rows,
        market_cols=m.columns,
        line_cells=line_cells,
        line_len=line_len,
        coins_by_count=coins_by_count,
        line_coins=line_coins(coins_by_count, line_len, m.coins_by),
        bank=cfg.coins.bank,
        start_coins=cfg.coins.start,
        row_len=L,
        brush=brush,
        mural_row=mural_row,
        mural_pts=mural_pts,
        tile_col=tile_col,
        in_suitcases=cfg.tourists.in_suitcases,
        locked_per_row=cfg.tourists.locked_per_mural_row,
        empty_pts=cfg.scoring.empty_space,
        bag_trigger=cfg.end.bag_empty_triggers_end,
        max_turns=cfg.end.max_turns,
        card_kind=np.array([SHOP_KINDS.index(c.kind) for c in cards], np.int64),
        card_markers=np.array([c.markers for c in cards], np.int64),
        card_points=np.array([c.points for c in cards], np.int64),
        card_at_least=np.array([c.at_least for c in cards], np.int64),
        card_per=np.array([c.per for c in cards], np.int64),
        card_max=np.array([-1 if c.max_points is None else c.max_points for c in cards], np.int64),
        fixed=fixed,
        deck_take=np.array([TAKE_KINDS.index(d.take) for d in deck], np.int64),
        deck_index=np.array([max(d.index - 1, 0) for d in deck], np.int64),
        deck_ppu=np.array([d.points_per_umbrella for d in deck], np.int64),
        deck_points=np.array([d.points for d in deck], np.int64),
        ai_points=end.points,
        ai_per_umbrella=end.per_umbrella,
        ai_group_k=end.colour_group_at_least,
        ai_group_pts=end.group_points,
    )


# where each State field starts in the buffer (state_offsets), in this order
(
    O_G,
    O_MARKET,
    O_BAG,
    O_BOARD,
    O_FILL,
    O_FLIPPED,
    O_UNLOCKED,
    O_SUITCASE,
    O_TILE_AT,
    O_OCC,
    O_COINS,
    O_STATS,
    O_SHOPS,
    O_SHOP_MASK,
    O_DECK,
    O_AI,
    O_END,
) = range(17)


@nb.njit(cache=True, inline="always")
def state_offsets(rules, base):
    """int64[17]: where each field of a :class:`State` of ``rules`` starts in a buffer whose State
    begins at ``base`` (indices O_*; ``O_END`` is its end). The order is g, market, bag, board, fill,
    flipped, unlocked, suitcase, tile_at, occ, coins, stats, shops, shop_mask, deck, ai; each field
    C-ordered with the shape of :class:`State`."""
    n, C, L = rules.n_players, rules.n_colours, rules.row_len
    sizes = (
        N_G,
        rules.market_rows * rules.market_cols,
        C,
        n * ROWS * L,
        n * ROWS,
        n * C,
        n * ROWS,
        n,
        n * ROWS,
        n * ROWS,
        n,
        n * N_STATS,
        2,
        2,
        rules.deck_take.shape[0],
        C,
    )
    out = np.empty(17, np.int64)
    o = base
    for i in range(16):
        out[i] = o
        o += sizes[i]
    out[O_END] = o
    return out


@nb.njit(cache=True)
def state_size(rules):
    """Length of the int64 buffer that holds a :class:`State` of ``rules`` (see :func:`state_views`)."""
    return state_offsets(rules, 0)[O_END]


@nb.njit(cache=True, inline="always")
def state_views(S, rules, o):
    """The :class:`State` whose fields are views into ``S`` where ``o`` (:func:`state_offsets`)
    says. Writing to a field writes to ``S``; ``S`` is the whole position."""
    n, C, L = rules.n_players, rules.n_colours, rules.row_len
    return State(
        S[o[O_MARKET] : o[O_BAG]],
        S[o[O_BAG] : o[O_BOARD]],
        S[o[O_BOARD] : o[O_FILL]].reshape((n, ROWS, L)),
        S[o[O_FILL] : o[O_FLIPPED]].reshape((n, ROWS)),
        S[o[O_FLIPPED] : o[O_UNLOCKED]].reshape((n, C)),
        S[o[O_UNLOCKED] : o[O_SUITCASE]].reshape((n, ROWS)),
        S[o[O_SUITCASE] : o[O_TILE_AT]],
        S[o[O_TILE_AT] : o[O_OCC]].reshape((n, ROWS)),
        S[o[O_OCC] : o[O_COINS]].reshape((n, ROWS)),
        S[o[O_COINS] : o[O_STATS]],
        S[o[O_STATS] : o[O_SHOPS]].reshape((n, N_STATS)),
        S[o[O_SHOPS] : o[O_SHOP_MASK]],
        S[o[O_SHOP_MASK] : o[O_DECK]],
        S[o[O_DECK] : o[O_AI]],
        S[o[O_AI] : o[O_END]],
        S[o[O_G] : o[O_MARKET]],
    )


def empty_state(rules: Rules) -> State:
    """A :class:`State` of ``rules`` over a fresh buffer of its own (all zero, market and boards
    empty); :func:`setup` deals it."""
    st = state_views(np.zeros(state_size(rules), np.int64), rules, state_offsets(rules, 0))
    st.market[:] = -1
    st.board[:] = -1
    return st


# --------------------------------------------------------------------------- compiled transitions


@nb.njit(cache=True, inline="always")
def below(rng, n):
    """A uniform integer in [0, n) drawn from ``rng`` (one double; bias below 2^-40 for n < 2^13)."""
    return min(int(rng.random() * n), n - 1)


@nb.njit(cache=True, inline="always")
def shuffle(arr, n, rng):
    """Shuffle ``arr[:n]`` in place (Fisher-Yates with :func:`below`)."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@nb.njit(cache=True, inline="always")
def draw_umbrella(bag, rng):
    """One umbrella drawn at random from the bag (its colour), or -1 when the bag is empty."""
    total = 0
    for c in range(bag.shape[0]):
        total += bag[c]
    if total == 0:
        return -1
    r = below(rng, total)
    for c in range(bag.shape[0]):
        if r < bag[c]:
            bag[c] -= 1
            return c
        r -= bag[c]
    return -1  # unreachable


@nb.njit(cache=True)
def refill_market(market, bag, rng):
    """Refill the Market: empty cells in reading order (top row first, left to right) from the bag.
    Returns False when the bag ran out before every cell was filled."""
    for cell in range(market.shape[0]):
        if market[cell] < 0:
            c = draw_umbrella(bag, rng)
            if c < 0:
                return False
            market[cell] = c
    return True


@nb.njit(cache=True)
def setup(st, rules, rng):
    """Setup: shop cards and markers (steps 2-3), bag and market (4), coins (10), tourists and
    tiles (7-8); solo, the shuffled tour-guide deck (Solo Setup 3). Seat 0 starts (step 12: the
    seat order of a results table is the turn order)."""
    n = rules.n_players
    C = rules.n_colours
    n_cards = rules.card_kind.shape[0]
    if rules.fixed[0] >= 0:
        st.shops[0] = rules.fixed[0]
        st.shops[1] = rules.fixed[1]
    else:
        a = below(rng, n_cards)
        b = below(rng, n_cards - 1)
        if b >= a:
            b += 1
        st.shops[0] = a
        st.shops[1] = b
    markers = np.arange(C)
    shuffle(markers, C, rng)
    k = 0
    for s in range(2):
        st.shop_mask[s] = 0
        for _ in range(rules.card_markers[st.shops[s]]):
            st.shop_mask[s] |= 1 << markers[k]
            k += 1
    for c in range(C):
        st.bag[c] = rules.per_colour
    st.market[:] = -1
    refill_market(st.market, st.bag, rng)
    st.g[G_BANK] = rules.bank
    for s in range(n):
        pay = min(rules.start_coins, st.g[G_BANK])
        st.coins[s] = pay
        st.g[G_BANK] -= pay
        st.suitcase[s] = rules.in_suitcases
        for r in range(ROWS):
            st.tile_at[s, r] = r
    st.g[G_SEAT] = 0
    st.g[G_TRIGGER] = -1
    D = st.deck.shape[0]
    for i in range(D):
        st.deck[i] = i
    shuffle(st.deck, D, rng)


# The helpers below take arrays, not the State and Rules tuples: a call that passes those tuples
# costs about a microsecond (numba counts references to every array in them), too much for the
# greedy search's inner loop.


@nb.njit(cache=True, inline="always")
def line_umbrellas(market, line_cells, line_len, line, out):
    """The umbrellas in market line ``line`` written to ``out`` (in line order); returns how many."""
    k = 0
    for j in range(line_len[line]):
        c = market[line_cells[line, j]]
        if c >= 0:
            out[k] = c
            k += 1
    return k


@nb.njit(cache=True, inline="always")
def line_open(market, line_cells, line_len, line_coins, coins, line):
    """Pick Umbrellas: a line can be taken when it holds an umbrella and its cost can be paid
    with ``coins`` (``line_coins[line, k]`` for the k umbrellas it holds: by those umbrellas, "a column
    with 3 umbrellas", or by the line's length, ``market.coins_by``, assumed)."""
    k = 0
    for j in range(line_len[line]):
        if market[line_cells[line, j]] >= 0:
            k += 1
    return k > 0 and coins + min(line_coins[line, k], 0) >= 0


@nb.njit(cache=True, inline="always")
def placing(fill_r, row_len, brush_row, flipped, unlocked, mural_row, order, k, flips):
    """Place Umbrellas and Update Mural, without changing anything: how many of the ``k`` umbrellas
    ``order[:k]`` fit into a row with ``fill_r`` spaces filled (``brush_row`` its paintbrush spaces),
    which colours' mural tiles they flip (``flips[c]`` set to 1, cleared first; ``flipped`` and
    ``unlocked`` the player's mural) and how many mural rows that completes.
    Returns (placed, tiles flipped, mural rows completed)."""
    C = flips.shape[0]
    for c in range(C):
        flips[c] = 0
    placed = min(k, row_len - fill_r)
    nf = 0
    for j in range(placed):
        c = order[j]
        if brush_row[fill_r + j] and flipped[c] == 0 and flips[c] == 0:
            flips[c] = 1
            nf += 1
    done = 0
    if nf:
        for r in range(ROWS):
            if unlocked[r]:
                continue
            full = True
            for c in range(C):
                if mural_row[c] == r and flipped[c] == 0 and flips[c] == 0:
                    full = False
            if full:
                done += 1
    return placed, nf, done


@nb.njit(cache=True, inline="always")
def row_count(board_row, n, c1, c2):
    """Umbrellas among the first ``n`` of a board row of colour c1 or c2 (Attract Tourists:
    "score that row")."""
    out = 0
    for j in range(n):
        c = board_row[j]
        if c == c1 or c == c2:
            out += 1
    return out


@nb.njit(cache=True)
def _tour_guide(st, rules, rng):
    """Solo Mode, Gameplay step 2: reveal the top tour-guide card and let the AI take umbrellas
    from the market; they stay beside the deck by colour (``st.ai``), not in the bag."""
    card = st.deck[st.g[G_DECK]]
    st.g[G_DECK] += 1
    take, idx = rules.deck_take[card], rules.deck_index[card]
    cols = rules.market_cols
    M = st.market.shape[0]
    most = -1
    if take == TK_MOST:
        counts = np.zeros(rules.n_colours, np.int64)
        for cell in range(M):
            if st.market[cell] >= 0:
                counts[st.market[cell]] += 1
        best = 0
        for c in range(rules.n_colours):
            if counts[c] > best:
                best = counts[c]
                most = c
    taken = 0
    for cell in range(M):
        c = st.market[cell]
        if c < 0:
            continue
        hit = False
        if take == TK_LINE:
            for j in range(rules.line_len[idx]):
                if rules.line_cells[idx, j] == cell:
                    hit = True
        elif take == TK_ROW:
            hit = cell // cols == idx
        elif take == TK_COLUMN:
            hit = cell % cols == idx
        else:
            hit = c == most
        if hit:
            st.ai[c] += 1
            st.market[cell] = -1
            taken += 1
    st.g[G_AI_PTS] += rules.deck_points[card] + rules.deck_ppu[card] * taken


@nb.njit(cache=True)
def apply_move(st, rules, mv, rng):
    """One whole turn of the seat to move (the move must be legal: :mod:`.kernel` checks): Pick Umbrellas (coins),
    Place Umbrellas (overflow back into the bag), Update Mural (flips, unlocks), Attract Tourists,
    solo the tour-guide card, Refill the Market; then the end trigger and last turns (Game End)."""
    seat = st.g[G_SEAT]
    n = rules.n_players
    line, row, k = mv[MV_LINE], mv[MV_ROW], mv[MV_K]
    if line >= 0:
        d = rules.line_coins[line, k]  # k: the umbrellas the line holds (market.coins_by)
        if d < 0:
            st.coins[seat] += d
            st.g[G_BANK] -= d
            st.stats[seat, ST_COINS_SPENT] -= d
        elif d > 0:
            gain = min(d, st.g[G_BANK])
            st.coins[seat] += gain
            st.g[G_BANK] -= gain
            st.stats[seat, ST_COINS_GAINED] += gain
        for j in range(rules.line_len[line]):
            st.market[rules.line_cells[line, j]] = -1
        st.stats[seat, ST_TAKEN] += k
    flipped, unlocked, mural_row = st.flipped[seat], st.unlocked[seat], rules.mural_row
    for j in range(k):
        c = mv[MV_ORDER + j]
        f = st.fill[seat, row]
        if f < rules.row_len:
            st.board[seat, row, f] = c
            st.fill[seat, row] = f + 1
            if rules.brush[row, f] and flipped[c] == 0:  # Update Mural: flip; a full mural row unlocks
                flipped[c] = 1
                r = mural_row[c]
                if unlocked[r] == 0:
                    full = True
                    for d in range(rules.n_colours):
                        if mural_row[d] == r and flipped[d] == 0:
                            full = False
                    if full:
                        unlocked[r] = 1
                        st.suitcase[seat] += rules.locked_per_row
        else:
            st.bag[c] += 1
            st.stats[seat, ST_RETURNED] += 1
    t, tr = mv[MV_TOURIST], mv[MV_TROW]
    if t == TAKE_BREAK:
        for r in range(ROWS):
            st.suitcase[seat] += st.occ[seat, r]
            st.occ[seat, r] = 0
        bottom = st.tile_at[seat, ROWS - 1]
        for r in range(ROWS - 1, 0, -1):
            st.tile_at[seat, r] = st.tile_at[seat, r - 1]
        st.tile_at[seat, 0] = bottom
        st.stats[seat, ST_BREAKS] += 1
    else:
        tile = st.tile_at[seat, tr]
        if t == ATTRACT_ONE:
            pts = row_count(st.board[seat, tr], st.fill[seat, tr], mv[MV_TCOL], mv[MV_TCOL])
            used = 1
        else:
            pts = row_count(st.board[seat, tr], st.fill[seat, tr], rules.tile_col[tile, 0], rules.tile_col[tile, 1])
            used = 2
        st.occ[seat, tr] = used
        st.suitcase[seat] -= used
        st.stats[seat, ST_ATTRACTED] += used
        st.stats[seat, ST_TOURIST_PTS] += pts
    if rules.solo:
        _tour_guide(st, rules, rng)
    bag_ok = refill_market(st.market, st.bag, rng)
    st.stats[seat, ST_TURNS] += 1
    st.g[G_MOVES] += 1
    if st.g[G_MOVES] >= rules.max_turns:  # the safety stop (kernel.ended_by: TURN_CAP when no rule ended it)
        st.g[G_OVER] = 1
    if rules.solo:
        if st.g[G_DECK] >= st.deck.shape[0]:
            st.g[G_OVER] = 1
        return
    if st.g[G_TRIGGER] < 0:
        full = True
        for r in range(ROWS):
            if st.fill[seat, r] < rules.row_len:
                full = False
        if full or (rules.bag_trigger and not bag_ok):
            st.g[G_TRIGGER] = seat
    nxt = (seat + 1) % n
    st.g[G_SEAT] = nxt
    if st.g[G_TRIGGER] >= 0 and nxt == st.g[G_TRIGGER]:
        st.g[G_OVER] = 1


@nb.njit(cache=True)
def umbrellas_accounted(st):
    """Bag + market + boards + the solo AI's piles: every umbrella of the box (an invariant)."""
    total = 0
    for c in range(st.bag.shape[0]):
        total += st.bag[c] + st.ai[c]
    for cell in range(st.market.shape[0]):
        if st.market[cell] >= 0:
            total += 1
    for s in range(st.fill.shape[0]):
        for r in range(ROWS):
            total += st.fill[s, r]
    return total
