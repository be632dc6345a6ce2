"""Águeda's compiled game interface (:mod:`balancer.core.kernel`): one int64 buffer per position,
one int64 per decision, the turn split into decisions of the same player.

**The position** ``S`` is one C-contiguous int64 array: a header of :data:`HEADER` ints (the
decision being asked, the turn assembled so far, the last complete turn), then the rules' whole
:class:`~.rules.State` (:func:`~.rules.state_views`: g, market, bag, boards, mural, tourists, coins,
statistics, shop cards, the tour-guide deck, the solo AI's piles). :func:`views` gives the State
whose arrays are views into ``S``, so the compiled rules (:func:`~.rules.apply_move`), the scorer
and the greedy and lookahead agents work on the buffer unchanged. A copy is ``S.copy()``.

**The move encoding.** A turn (How to Play) is up to four decisions of the player to move, asked in
this order; each is one int64 code:

================  =========================================================  ======================
decision          codes                                                       options
================  =========================================================  ======================
the line          ``line`` (0-based index into ``market.lines``) for each     1 to 5 (v1); always
                  line it may take (Pick Umbrellas: holds an umbrella, the     asked, it opens the
                  cost can be paid); :data:`NO_LINE` (99) alone when none      turn
                  can be taken (the turn goes on to the tourists)
the board row     ``100 + row`` (0..2): every row, a full one too (Place       3; asked after a line
                  Umbrellas: what does not fit goes back into the bag)
the order         ``200 + p``: the umbrellas in the order ``PERMS[k, p]`` of   up to 6 (v1: a line
                  the line's k umbrellas (line order: ``market.lines``);       holds at most 3)
                  one ``p`` per distinct way the row receives them (orders
                  that place the same colours on the same spaces and differ
                  only in what goes back into the bag are one option: the
                  first ``p`` of each)
the tourists      ``300`` take a break; ``301 + 3 r`` attract 1 tourist to     up to 10
                  the tile of board row ``r`` scoring its first colour,
                  ``302 + 3 r`` its second (listed only if it differs),
                  ``303 + 3 r`` attract 2 tourists there (Attract Tourists;
                  a tourist unlocked by this turn's placement counts)
================  =========================================================  ======================

A decision with a single option is taken by :func:`apply` itself (the order of one umbrella or of
two of one colour, into a full row; the break when no tourist is in a suitcase or no tile is
open), except the line, which is always asked so that every turn has at least one decision. The
turn is played (:func:`~.rules.apply_move`: coins, placement, mural, tourists, the solo tour guide,
the refill, the end trigger) when its last decision is taken; chance (the bag's draws, the
tour-guide card) is resolved there with the generator given to ``apply``. The full list of whole
turns would be up to 360 (5 lines x 3 rows x orders x 10 tourist options; measured over 3,465
positions of 120 random and greedy games: at most 360, median 180), too wide for a search's root;
split, no decision has more than 10 options (24 with a 4-umbrella line).

**Hidden information.** Everything on the table is open (market, boards, murals, tourists, coins,
the shop cards and their markers, the Solo End Game Scoring card, the AI's umbrella piles), and
the bag's contents are the box minus what is on the table, so it hides nothing: its draws are
chance, resolved in ``apply``. The one secret is the order of the tour-guide cards not yet revealed
(Solo Setup 3: a face-down deck); :func:`determinize` reshuffles exactly those (sorted first, so the
result depends only on what the seat sees) and :func:`observation` shows them sorted. With several
players the deck is dealt at setup but never used; it is hidden and reshuffled the same way.

**Values.** ``scores``: the points per seat as Final Scoring would count them now (tourist points,
mural, shop cards, -1 per empty space). ``returns`` at the end: with several players the win shares
(most points; ties broken by fewer empty spaces, then more mural tiles, then more coins; still tied:
shared, 1/k each), equal to ``ranks_and_win_shares`` of the Outcome; solo, the solo win: 1 when the
player's score is greater than the AI's (Solo Mode, Winning the Game: the AI wins ties), else 0.
``heuristic`` before the end: per seat ``1 / (1 + exp(-margin / scale))``, the margin being the
seat's estimate minus the best other seat's (solo: minus the AI's score now: its card points plus
its end card on the piles so far). A seat's estimate is its score now plus its progress: weights
times its tourists in the suitcase, its tourists on tiles, its coins, its reach (the points the
best Attract Tourists open to it now would score: the most umbrellas of a free tile's colours in
that tile's row, both colours with 2 tourists in the suitcase, one with 1; 0 with none), its mural
tiles flipped and its empty spaces (on top of the -1 each that the score counts). ``scale`` and the
weights are ``agents.heuristic`` in the YAML (agent parameters; a weight left out is 0); at the end
the heuristic equals ``returns``.

**Move scores.** :func:`move_scores` gives each decision the greedy agent's value
(:func:`~.agents.greedy_search`, weights ``agents.greedy``) of the best whole turn that agrees with
the decisions already taken this turn and with that decision: for the line, the row and the order
the best completion, for a tourist option the value of the turn it closes (every full row scores as
the one full row greedy tries). The decisions of the greedy turn score highest, so a search that
follows the move scores follows greedy; ties between turns of equal value are not broken (the
search draws from a :class:`~balancer.core.fixed_draws.FixedDraws`, every draw 0.0, and the scores
read only the values).

**Policy.** :func:`policy` is the greedy agent held to the decisions already taken this turn (the
best turn by the ``agents.greedy`` weights among those that agree with them; exact ties at random):
about 1.3 greedy searches per turn; it plays out games at about half the rate of the uniform random
policy (benchmarks/bench_agueda.py, 4 players: 350-440 against 720-850 games/s in the same runs)
and far stronger.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numba as nb
import numpy as np

from ...core.batch import GameBatch
from ...core.fixed_draws import FixedDraws
from ...core.game import Outcome
from ...core.kernel import ENDED_BY, GAME_AGENT, RULES, TURN_CAP, Engine, Kernel
from ...core.table_loop import register_table
from .agents import FREE, GREEDY, LOOKAHEAD, MAX_CANDIDATES, RANDOM, agent_params, choose_move, greedy_search
from .config import AguedaConfig
from .rules import (
    ATTRACT_ONE,
    ATTRACT_TWO,
    G_DECK,
    G_MOVES,
    G_OVER,
    G_SEAT,
    G_TRIGGER,
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
    O_AI,
    O_BAG,
    O_COINS,
    O_DECK,
    O_END,
    O_FILL,
    O_FLIPPED,
    O_MARKET,
    O_OCC,
    O_SUITCASE,
    O_TILE_AT,
    O_UNLOCKED,
    PERMS,
    ROWS,
    TAKE_BREAK,
    Rules,
    State,
    apply_move,
    below,
    compile_rules,
    line_open,
    line_umbrellas,
    placing,
    row_count,
    setup,
    shuffle,
    state_offsets,
    state_views,
)
from .scoring import (
    COMPONENTS,
    F_ATTRACTED,
    F_BREAKS,
    F_COINS,
    F_COINS_GAINED,
    F_COINS_SPENT,
    F_EMPTY_COUNT,
    F_MURAL_TILES,
    F_RETURNED,
    F_TURNS,
    N_FINAL,
    ai_score,
    final_rows,
)

# the header of S
H_PHASE = 0  # the decision asked: PH_*
H_PERM = 1  # the order chosen this turn (p of PERMS[k, p]), -1 before
H_MV = 2  # the turn assembled so far (rules' int64[MOVE_LEN]; -1 where not decided)
H_LAST = H_MV + MOVE_LEN  # the last complete turn played (-1 before the first)
HEADER = H_LAST + MOVE_LEN
G0 = HEADER  # g (seat, trigger, over, ...) is the State's first field
PH_LINE, PH_ROW, PH_ORDER, PH_TOURIST = 0, 1, 2, 3
M_ROW, M_ORDER, M_TOURIST = 100, 200, 300
NO_LINE = 99
"""The line decision when no line can be taken (market.assumed: the turn goes on to the tourists)."""
MAX_LINES = 16
PR_SUITCASE, PR_TOURISTS, PR_COINS, PR_REACH, PR_MURAL, PR_EMPTY = range(6)
N_PROGRESS = 6
"""The heuristic's progress terms (``agents.heuristic``, module docstring "Values"), in ``Table.progress``."""


class Table(NamedTuple):
    """The rule table ``T`` of one variant and player count: the compiled rules and the agent
    parameters the kernel's policy and heuristic use."""

    rules: Rules
    weights: np.ndarray  # float64[N_WEIGHTS]: agents.greedy (the rollout policy)
    scale: float  # agents.heuristic.scale: points of margin per logistic unit
    max_moves: int  # a bound on legal()'s count
    off: np.ndarray  # int64[17]: where each State field starts in S (rules.state_offsets after the header)
    progress: np.ndarray  # float64[N_PROGRESS]: agents.heuristic's progress weights (PR_* order)


# --------------------------------------------------------------------------- compile (Python)

_TABLES: dict[tuple[int, int], tuple[AguedaConfig, Table]] = {}
_CFG_OF: dict[int, tuple[Table, AguedaConfig]] = {}


def compile(cfg: AguedaConfig, n_players: int) -> Table:  # noqa: A001 (the Engine's name)
    """The variant compiled for ``n_players`` (1 = solo), cached per config and count. Raises
    ValueError for an unsupported count or a market line longer than MAX_LINE."""
    hit = _TABLES.get((id(cfg), n_players))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    rules = compile_rules(cfg, n_players)
    n_lines = int(rules.line_len.shape[0])
    if n_lines > MAX_LINES:
        raise ValueError(f"market.lines: at most {MAX_LINES} lines")
    longest = int(rules.line_len.max())
    _, weights = agent_params(cfg, "greedy")
    T = Table(
        rules,
        weights,
        float(cfg.agents.heuristic.scale),
        max(n_lines, ROWS, int(N_PERMS[longest]), 1 + 3 * ROWS, rules.n_colours),
        state_offsets(rules, HEADER),
        progress_weights(cfg),
    )
    _TABLES[(id(cfg), n_players)] = (cfg, T)
    _CFG_OF[id(T)] = (T, cfg)
    return T


def progress_weights(cfg: AguedaConfig) -> np.ndarray:
    """``Table.progress``: the heuristic's progress weights from ``agents.heuristic`` (PR_* order)."""
    h = cfg.agents.heuristic
    return np.array([h.suitcase, h.tourists, h.coins, h.reach, h.mural, h.empty], np.float64)


def config_of(T: Table) -> AguedaConfig:
    """The config ``T`` was compiled from (names for outcomes and transcripts)."""
    return _CFG_OF[id(T)][1]


def n_players(T: Table) -> int:
    return int(T.rules.n_players)


def max_moves(T: Table) -> int:
    return int(T.max_moves)


# --------------------------------------------------------------------------- compiled interface


@nb.njit(cache=True, inline="always")
def views(S, T):
    """The rules' :class:`~.rules.State` as views into ``S`` (after the header). Building them costs
    a few hundred nanoseconds (numba's reshape), so the decision code below reads ``S`` at the
    offsets ``T.off`` and builds the views only to play a whole turn."""
    return state_views(S, T.rules, T.off)


@nb.njit(cache=True, inline="always")
def _begin_turn(S):
    S[H_PHASE] = PH_LINE
    S[H_PERM] = -1
    for j in range(MOVE_LEN):
        S[H_MV + j] = -1


@nb.njit(cache=True)
def new_state(T, rng):
    """Setup (shop cards and markers, bag and market, coins, tourists; solo, the tour-guide deck)
    resolved with ``rng``; the first player's line decision is asked."""
    S = np.zeros(T.off[O_END], np.int64)
    for j in range(MOVE_LEN):
        S[H_LAST + j] = -1
    st = views(S, T)
    st.board[:] = -1
    setup(st, T.rules, rng)
    _begin_turn(S)
    return S


@nb.njit(cache=True)
def to_move(S, T):
    return S[G0 + G_SEAT]


@nb.njit(cache=True)
def is_over(S, T):
    return S[G0 + G_OVER] != 0


@nb.njit(cache=True)
def ended_by(S, T):
    """How a finished game ended: ``RULES`` when the rules ended it (Game End: the round of the seat
    that triggered the end came round; solo, the tour guide's deck ran out), else ``TURN_CAP``: the
    ``end.max_turns`` safety stop (not a rule) ended it."""
    if T.rules.solo:
        return RULES if S[G0 + G_DECK] >= views(S, T).deck.shape[0] else TURN_CAP
    trigger = S[G0 + G_TRIGGER]
    return RULES if trigger >= 0 and S[G0 + G_SEAT] == trigger else TURN_CAP


@nb.njit(cache=True, inline="always")
def _first_of_class(u, k, p, placed):
    """True when order p of ``u[:k]`` places its first ``placed`` colours differently from every
    earlier order q < p (the order decision lists one p per distinct placement)."""
    for q in range(p):
        same = True
        for j in range(placed):
            if u[PERMS[k, q, j]] != u[PERMS[k, p, j]]:
                same = False
                break
        if same:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _legal(S, T, out):
    """The options of the decision asked (module docstring) into ``out``; their count. ``out`` is
    also the scratch of the tourists' placement check (T.max_moves >= the colours)."""
    rules, off = T.rules, T.off
    seat = S[G0 + G_SEAT]
    ph = S[H_PHASE]
    if ph == PH_LINE:
        n = 0
        market = S[off[O_MARKET] : off[O_BAG]]
        coins = S[off[O_COINS] + seat]
        for line in range(rules.line_len.shape[0]):
            if line_open(market, rules.line_cells, rules.line_len, rules.line_coins, coins, line):
                out[n] = line
                n += 1
        if n == 0:
            out[0] = NO_LINE
            n = 1
        return n
    if ph == PH_ROW:
        for r in range(ROWS):
            out[r] = M_ROW + r
        return ROWS
    k = S[H_MV + MV_K]
    row = S[H_MV + MV_ROW]
    fill = S[off[O_FILL] + ROWS * seat + row]
    if ph == PH_ORDER:
        u = S[H_MV + MV_ORDER : H_MV + MV_ORDER + MAX_LINE]
        placed = min(k, rules.row_len - fill)
        n = 0
        for p in range(N_PERMS[k]):
            if _first_of_class(u, k, p, placed):
                out[n] = M_ORDER + p
                n += 1
        return n
    # the tourists, after this turn's placement (a tourist it unlocks may be used at once)
    C = rules.n_colours
    flips = out[:C]
    _, _, done = placing(
        fill,
        rules.row_len,
        rules.brush[row],
        S[off[O_FLIPPED] + C * seat : off[O_FLIPPED] + C * seat + C],
        S[off[O_UNLOCKED] + ROWS * seat : off[O_UNLOCKED] + ROWS * seat + ROWS],
        rules.mural_row,
        S[H_MV + MV_ORDER : H_MV + MV_ORDER + MAX_LINE],
        k,
        flips,
    )
    suit = S[off[O_SUITCASE] + seat] + done * rules.locked_per_row
    out[0] = M_TOURIST
    n = 1
    for r in range(ROWS):
        if S[off[O_OCC] + ROWS * seat + r] != 0:
            continue
        tile = S[off[O_TILE_AT] + ROWS * seat + r]
        if suit >= 1:
            out[n] = M_TOURIST + 1 + 3 * r
            n += 1
            if rules.tile_col[tile, 1] != rules.tile_col[tile, 0]:
                out[n] = M_TOURIST + 2 + 3 * r
                n += 1
        if suit >= 2:
            out[n] = M_TOURIST + 3 + 3 * r
            n += 1
    return n


@nb.njit(cache=True)
def legal(S, T, out):
    """The legal decisions of the seat to move into ``out`` (module docstring); 0 once over."""
    if S[G0 + G_OVER]:
        return 0
    return _legal(S, T, out)


@nb.njit(cache=True, inline="always")
def _decide(S, T, move):
    """Take decision ``move`` (one of :func:`_legal`) into the header; True when it completes the
    turn (the header then holds the whole turn, for :func:`_finish_turn`)."""
    rules, off = T.rules, T.off
    ph = S[H_PHASE]
    if ph == PH_LINE:
        if move == NO_LINE:
            S[H_MV + MV_LINE] = -1
            S[H_MV + MV_ROW] = 0
            S[H_MV + MV_K] = 0
            S[H_PHASE] = PH_TOURIST
        else:
            S[H_MV + MV_LINE] = move
            S[H_MV + MV_K] = line_umbrellas(
                S[off[O_MARKET] : off[O_BAG]],
                rules.line_cells,
                rules.line_len,
                move,
                S[H_MV + MV_ORDER : H_MV + MV_ORDER + MAX_LINE],
            )
            S[H_PHASE] = PH_ROW
        return False
    if ph == PH_ROW:
        S[H_MV + MV_ROW] = move - M_ROW
        S[H_PHASE] = PH_ORDER
        return False
    if ph == PH_ORDER:
        p = move - M_ORDER
        k = S[H_MV + MV_K]
        o = H_MV + MV_ORDER
        u = (S[o], S[o + 1], S[o + 2], S[o + 3])  # the line order (MAX_LINE = 4)
        for j in range(k):
            S[o + j] = u[PERMS[k, p, j]]
        S[H_PERM] = p
        S[H_PHASE] = PH_TOURIST
        return False
    t = move - M_TOURIST
    if t == 0:
        S[H_MV + MV_TOURIST] = TAKE_BREAK
        S[H_MV + MV_TROW] = -1
        S[H_MV + MV_TCOL] = -1
    else:
        r = (t - 1) // 3
        j = (t - 1) % 3
        S[H_MV + MV_TROW] = r
        if j == 2:
            S[H_MV + MV_TOURIST] = ATTRACT_TWO
            S[H_MV + MV_TCOL] = -1
        else:
            S[H_MV + MV_TOURIST] = ATTRACT_ONE
            S[H_MV + MV_TCOL] = rules.tile_col[S[off[O_TILE_AT] + ROWS * S[G0 + G_SEAT] + r], j]
    return True


@nb.njit(cache=True, inline="always")
def _finish_turn(S, rules, st, rng):
    """Play the assembled turn (rules.apply_move, chance from ``rng``) and ask the next line."""
    for j in range(MOVE_LEN):
        S[H_LAST + j] = S[H_MV + j]
    apply_move(st, rules, S[H_MV : H_MV + MOVE_LEN], rng)
    _begin_turn(S)


@nb.njit(cache=True, inline="always")
def _run(S, T, move, rng, buf):
    """Take ``move``, then every decision with a single option that follows (the order, the
    tourists; the line is always asked); a completed turn is played with ``rng``. Returns the count
    of the next decision's options when they were listed into ``buf`` on the way, else -1."""
    done = _decide(S, T, move)
    while True:
        if done:
            _finish_turn(S, T.rules, views(S, T), rng)
            return -1
        ph = S[H_PHASE]
        if ph != PH_ORDER and ph != PH_TOURIST:
            return -1
        n = _legal(S, T, buf)
        if n != 1:
            return n
        done = _decide(S, T, buf[0])


@nb.njit(cache=True)
def apply(S, T, move, rng):
    """Take decision ``move`` (one of :func:`legal`; not checked) in place; the decisions with a
    single option that follow are taken too, and a completed turn is played with ``rng``."""
    buf = np.empty(T.max_moves, np.int64)
    _run(S, T, move, rng, buf)


@nb.njit(cache=True)
def play_turn(S, rules, st, mv, rng):
    """Play a whole turn ``mv`` (rules' int64[MOVE_LEN], legal) of the seat to move, asked its line:
    the same position as taking its decisions one by one (the fast path of greedy and lookahead)."""
    for j in range(MOVE_LEN):
        S[H_MV + j] = mv[j]
    _finish_turn(S, rules, st, rng)


@nb.njit(cache=True)
def _points(st, rules, out):
    """Each seat's score as Final Scoring would count it now, into ``out``."""
    rows = final_rows(st, rules)
    for s in range(rules.n_players):
        total = 0
        for c in range(len(COMPONENTS)):
            total += rows[s, c]
        out[s] = total
    return rows


@nb.njit(cache=True)
def scores(S, T, out):
    """Points per seat (Final Scoring as if the game ended now; the final scores at the end)."""
    _points(views(S, T), T.rules, out)


@nb.njit(cache=True, inline="always")
def _ahead(rows, pts, a, b):
    """Winning the Game: seat ``a`` ranks above ``b`` (more points, then fewer empty spaces, more
    mural tiles, more coins)."""
    if pts[a] != pts[b]:
        return pts[a] > pts[b]
    if rows[a, F_EMPTY_COUNT] != rows[b, F_EMPTY_COUNT]:
        return rows[a, F_EMPTY_COUNT] < rows[b, F_EMPTY_COUNT]
    if rows[a, F_MURAL_TILES] != rows[b, F_MURAL_TILES]:
        return rows[a, F_MURAL_TILES] > rows[b, F_MURAL_TILES]
    return rows[a, F_COINS] > rows[b, F_COINS]


@nb.njit(cache=True)
def _returns(st, rules, out):
    n = rules.n_players
    pts = np.zeros(n, np.int64)
    rows = _points(st, rules, pts)
    if n == 1:
        out[0] = 1.0 if pts[0] > ai_score(st, rules) else 0.0  # Solo: the AI wins ties
        return
    # Winning the Game: points, then fewer empty spaces, more mural tiles, more coins; then shared
    best = 0
    for s in range(1, n):
        if _ahead(rows, pts, s, best):
            best = s
    winners = 0
    for s in range(n):
        if _ahead(rows, pts, best, s):
            out[s] = 0.0
        else:
            out[s] = 1.0
            winners += 1
    for s in range(n):
        out[s] /= winners


@nb.njit(cache=True)
def returns(S, T, out):
    """At the end: win shares with the tie-breakers (several players), the solo win (solo)."""
    _returns(views(S, T), T.rules, out)


@nb.njit(cache=True, inline="always")
def _progress(st, rules, hw, s):
    """Seat ``s``'s progress terms (module docstring, "Values"): ``hw`` (``Table.progress``) times
    its tourists in the suitcase, on tiles, coins, the points of the best Attract Tourists open now,
    mural tiles flipped and empty spaces."""
    suit = st.suitcase[s]
    occ = 0
    reach = 0
    empty = 0
    for r in range(ROWS):
        occ += st.occ[s, r]
        f = st.fill[s, r]
        empty += rules.row_len - f
        if suit >= 1 and st.occ[s, r] == 0:
            c1, c2 = rules.tile_col[st.tile_at[s, r], 0], rules.tile_col[st.tile_at[s, r], 1]
            row = st.board[s, r]
            if suit >= 2:
                v = row_count(row, f, c1, c2)
            else:
                v = max(row_count(row, f, c1, c1), row_count(row, f, c2, c2))
            reach = max(reach, v)
    flipped = 0
    for c in range(rules.n_colours):
        flipped += st.flipped[s, c]
    return (
        hw[PR_SUITCASE] * suit
        + hw[PR_TOURISTS] * occ
        + hw[PR_COINS] * st.coins[s]
        + hw[PR_REACH] * reach
        + hw[PR_MURAL] * flipped
        + hw[PR_EMPTY] * empty
    )


@nb.njit(cache=True)
def heuristic(S, T, out):
    """A logistic of the estimate margin (module docstring, "Values"); ``returns`` at the end."""
    st = views(S, T)
    rules = T.rules
    if st.g[G_OVER]:
        _returns(st, rules, out)
        return
    n = rules.n_players
    pts = np.zeros(n, np.int64)
    _points(st, rules, pts)
    est = np.empty(n, np.float64)
    for s in range(n):
        est[s] = pts[s] + _progress(st, rules, T.progress, s)
    for s in range(n):
        if n == 1:
            other = float(ai_score(st, rules))
        else:
            other = -1e300
            for o in range(n):
                if o != s and est[o] > other:
                    other = est[o]
        out[s] = 1.0 / (1.0 + math.exp(-(est[s] - other) / T.scale))


@nb.njit(cache=True)
def determinize(S, T, seat, rng):
    """Reshuffle the tour-guide cards not yet revealed (sorted first: the result depends only on
    what ``seat`` sees); nothing else is hidden (module docstring)."""
    rest = S[T.off[O_DECK] + S[G0 + G_DECK] : T.off[O_AI]]
    rest.sort()
    shuffle(rest, rest.shape[0], rng)


@nb.njit(cache=True, inline="always")
def _order_code(S, T, order, k_plan):
    """The order decision that places ``order[:k]`` (a turn's colours in placing order), or -1."""
    k = S[H_MV + MV_K]
    if k_plan != k:
        return -1
    rules = T.rules
    u = S[H_MV + MV_ORDER : H_MV + MV_ORDER + MAX_LINE]
    for c in range(rules.n_colours):  # the order must be the line's umbrellas
        a = 0
        b = 0
        for j in range(k):
            a += u[j] == c
            b += order[j] == c
        if a != b:
            return -1
    placed = min(k, rules.row_len - S[T.off[O_FILL] + ROWS * S[G0 + G_SEAT] + S[H_MV + MV_ROW]])
    for p in range(N_PERMS[k]):
        if not _first_of_class(u, k, p, placed):
            continue
        same = True
        for j in range(placed):
            if u[PERMS[k, p, j]] != order[j]:
                same = False
        if same:
            return M_ORDER + p
    return -1


@nb.njit(cache=True, inline="always")
def _plan_code(S, T, mv):
    """The decision asked now that agrees with the whole turn ``mv`` (rules' int64[MOVE_LEN]);
    -1 when ``mv`` cannot be written in the decisions (not necessarily legal otherwise)."""
    ph = S[H_PHASE]
    if ph == PH_LINE:
        return NO_LINE if mv[MV_LINE] < 0 else mv[MV_LINE]
    if ph == PH_ROW:
        return M_ROW + mv[MV_ROW] if 0 <= mv[MV_ROW] < ROWS else -1
    if ph == PH_ORDER:
        return _order_code(S, T, mv[MV_ORDER : MV_ORDER + MAX_LINE], mv[MV_K])
    t, tr, tc = mv[MV_TOURIST], mv[MV_TROW], mv[MV_TCOL]
    if t == TAKE_BREAK:
        return M_TOURIST if tr == -1 and tc == -1 else -1
    if tr < 0 or tr >= ROWS:
        return -1
    rules = T.rules
    tile = S[T.off[O_TILE_AT] + ROWS * S[G0 + G_SEAT] + tr]
    if t == ATTRACT_ONE:
        if tc == rules.tile_col[tile, 0]:
            return M_TOURIST + 1 + 3 * tr
        if tc == rules.tile_col[tile, 1]:
            return M_TOURIST + 2 + 3 * tr
        return -1
    if t == ATTRACT_TWO and tc == -1:
        return M_TOURIST + 3 + 3 * tr
    return -1


@nb.njit(cache=True)
def plan_code(S, T, mv):
    """:func:`_plan_code` for the Python side (agents' plans, rule tests' whole turns)."""
    return _plan_code(S, T, mv)


@nb.njit(cache=True, inline="always")
def _constrained_greedy(S, rules, st, w, rng, plan, cand_mv, cand_val, store, only_tourist):
    """The greedy agent's best whole turn among those that agree with the decisions taken (with
    ``store``, every such placement and its value into ``cand_mv``/``cand_val``; ``only_tourist``:
    :func:`~.agents.greedy_search`'s); returns the count of placements tried."""
    ph = S[H_PHASE]
    only_line = FREE if ph == PH_LINE else S[H_MV + MV_LINE]
    only_row = S[H_MV + MV_ROW] if ph >= PH_ORDER else FREE
    only_perm = S[H_PERM] if ph == PH_TOURIST and S[H_PERM] >= 0 else FREE
    # np.bool_/np.int64: never a literal True/False or FREE (one compiled greedy_search per rng type)
    return greedy_search(
        st,
        rules,
        w,
        rng,
        plan,
        np.bool_(store),
        cand_mv,
        cand_val,
        np.int64(only_line),
        np.int64(only_row),
        np.int64(only_perm),
        np.int64(only_tourist),
    )


@nb.njit(cache=True)
def policy(S, T, out, rng):
    """The rollout policy: the greedy decision (module docstring)."""
    plan = np.empty(MOVE_LEN, np.int64)
    _constrained_greedy(
        S, T.rules, views(S, T), T.weights, rng, plan, np.empty((1, MOVE_LEN), np.int64), np.empty(1), False, FREE
    )
    return _plan_code(S, T, plan)


@nb.njit(cache=True)
def move_scores(S, T, moves, n, out):
    """The greedy agent's value (:func:`~.agents.greedy_search`, weights ``agents.greedy``) of each
    decision ``moves[:n]`` of the seat to move: the value of the best whole turn that agrees with
    the decisions already taken and with that one (the line, the row, the order open the turn: the
    best completion; a tourist option closes it: that turn's value). The greedy turn's decisions
    therefore score highest (module docstring, "Move scores"). The search's generator is a
    :class:`~balancer.core.fixed_draws.FixedDraws`: it draws only to break exact ties between turns
    of equal value, which the scores do not read, so nothing is random."""
    rules = T.rules
    st = views(S, T)
    rng = FixedDraws()
    plan = np.empty(MOVE_LEN, np.int64)
    most = (rules.line_len.shape[0] + 1) * ROWS * N_PERMS[MAX_LINE]  # placements: (lines or none) x rows x orders
    cand_mv = np.empty((most, MOVE_LEN), np.int64)
    cand_val = np.empty(most, np.float64)
    ph = S[H_PHASE]
    if ph == PH_TOURIST:  # the placement is taken: one restricted search per tourist option
        for i in range(n):
            nc = _constrained_greedy(S, rules, st, T.weights, rng, plan, cand_mv, cand_val, True, moves[i] - M_TOURIST)
            out[i] = -1e300
            for c in range(nc):
                out[i] = max(out[i], cand_val[c])
        return
    for i in range(n):
        out[i] = -1e300
    nc = _constrained_greedy(S, rules, st, T.weights, rng, plan, cand_mv, cand_val, True, FREE)
    fill = S[T.off[O_FILL] + ROWS * S[G0 + G_SEAT] : T.off[O_FILL] + ROWS * S[G0 + G_SEAT] + ROWS]
    for c in range(nc):
        code = _plan_code(S, T, cand_mv[c])
        # greedy tries one full row only (all send every umbrella back): its value is every full row's
        full = ph == PH_ROW and fill[cand_mv[c, MV_ROW]] == rules.row_len
        for i in range(n):
            hit = moves[i] == code or (full and fill[moves[i] - M_ROW] == rules.row_len)
            if hit and cand_val[c] > out[i]:
                out[i] = cand_val[c]


@nb.njit(cache=True)
def agent_decision(S, T, kind, w, candidates, rollouts, rng, plan, fresh, cand_mv, cand_val):
    """The decision of agent ``kind`` (GREEDY, LOOKAHEAD) for the Python protocol. ``fresh``: plan
    the whole turn into ``plan`` first (at the line: exactly the fast path's search and draws); else
    ``plan`` holds this turn's plan. A plan that does not fit the decisions taken (someone else took
    them) is replaced by the greedy turn that agrees with them."""
    st = views(S, T)
    rules = T.rules
    if fresh:
        if S[H_PHASE] == PH_LINE:
            choose_move(st, rules, kind, w, candidates, rollouts, rng, plan, cand_mv, cand_val)
        else:
            _constrained_greedy(S, rules, st, w, rng, plan, cand_mv, cand_val, False, FREE)
    code = _plan_code(S, T, plan)
    buf = np.empty(T.max_moves, np.int64)
    n = _legal(S, T, buf)
    for i in range(n):
        if buf[i] == code:
            return code
    _constrained_greedy(S, rules, st, w, rng, plan, cand_mv, cand_val, False, FREE)
    return _plan_code(S, T, plan)


def checkpoint_bound(rules) -> int:
    """The most checkpoints a game of ``rules`` (a :class:`~.rules.Rules`) records (:func:`play_table`):
    one per round (every seat has taken one turn; seat 1 always starts) and one at the game's end when
    it ends mid-round, so at most ``ceil(end.max_turns / n)``: the safety stop ends every game by then
    (greedy and random games take 10 to 113 turns; the bound is the cap's so that no checkpoint is ever
    dropped). Solo, a turn is a round and the game ends after the tour-guide deck's last card (one a
    turn), so at most the smaller of the deck and ``max_turns``."""
    n = int(rules.n_players)
    if rules.solo:
        return min(int(rules.max_turns), int(rules.deck_take.shape[0]))
    return -(-int(rules.max_turns) // n)


@nb.njit(cache=True, inline="always")
def _checkpoint_due(turns, over, n, k):
    """Whether the table's ``turns`` taken and its end (``over``) make checkpoint ``k`` due: the end of
    round ``k + 1`` (every seat has taken one more turn), or the game's end within a later round."""
    return turns == (k + 1) * n or (over != 0 and turns > k * n)


def trajectory_buffer(T) -> np.ndarray:
    """``Engine.trajectory_buffer``: int64[K, n] zeros, K = :func:`checkpoint_bound`."""
    return np.zeros((checkpoint_bound(T.rules), T.rules.n_players), np.int64)


@nb.njit(cache=True)
def record_checkpoint(S, T, traj, k):
    """``Engine.record_checkpoint`` for the generic loop (a table with a search seat): after a move
    that made checkpoint ``k`` due (:func:`_checkpoint_due`, as :func:`play_table` records), row ``k``
    of ``traj`` gets each seat's score as Final Scoring would count it now (:func:`_points`) and
    ``k + 1`` is returned; else ``k``."""
    st = views(S, T)
    if _checkpoint_due(st.g[G_MOVES], st.g[G_OVER], T.rules.n_players, k):
        _points(st, T.rules, traj[k])
        return k + 1
    return k


@nb.njit(cache=True, inline="always")  # into the core loop's copy: no library level above it (issue 47)
def play_table(T, kinds, weights, candidates, rollouts, game_rng, agent_rng, cand_mv, cand_val, traj):
    """One whole game from Setup to the end in one compiled call (the runner's fast path): seat s
    plays agent ``kinds[s]`` (RANDOM: uniform per decision, one draw each, as the protocol's random
    agent; GREEDY, LOOKAHEAD: a planned whole turn played at once, :func:`play_turn`). Chance draws
    from ``game_rng``, choices from ``agent_rng``. Returns (S, final_rows, the shop cards, the solo
    AI's score, the checkpoints recorded): everything the Outcome needs, so that Python builds no views.

    ``traj`` (int64[K, n], K = :func:`checkpoint_bound`; int64[0, n] records nothing) receives the
    game's trajectory: at the end of every round (every seat has taken one turn) and at the game's
    end (a last partial round ends there), each seat's score as Final Scoring would count it at that
    moment (:func:`scores`' :func:`_points`: tourist points so far, mural, shop cards, -1 per empty
    space), so the last checkpoint is the final scores. Recording draws nothing: the game is the same."""
    S = new_state(T, game_rng)
    st = views(S, T)
    rules = T.rules
    n = rules.n_players
    mv = np.zeros(MOVE_LEN, np.int64)
    buf = np.zeros(T.max_moves, np.int64)
    record = traj.shape[0] > 0
    turns = 0  # the table's turns at the last checkpoint check
    k = 0  # checkpoints recorded
    listed = -1  # the options of the decision asked, when _run has listed them into buf
    while st.g[G_OVER] == 0:
        seat = st.g[G_SEAT]
        kind = kinds[seat]
        if kind == RANDOM:
            n_opt = listed if listed >= 0 else _legal(S, T, buf)
            listed = _run(S, T, buf[below(agent_rng, n_opt)], game_rng, buf)
        else:
            choose_move(st, rules, kind, weights[seat], candidates, rollouts, agent_rng, mv, cand_mv, cand_val)
            play_turn(S, rules, st, mv, game_rng)
            listed = -1
        if record and st.g[G_MOVES] != turns:  # a turn ended: a round too, or the game?
            turns = st.g[G_MOVES]
            if _checkpoint_due(turns, st.g[G_OVER], n, k):
                _points(st, rules, traj[k])
                k += 1
    ai = ai_score(st, rules) if rules.solo else 0
    return S, final_rows(st, rules), st.shops.copy(), ai, k


@nb.njit(cache=True, inline="always")
def play_seated(T, kinds, weights, ws, game_rng, agent_rng, record):
    """Águeda's table for the core loop (:mod:`balancer.core.table_loop`): one game played by
    :func:`play_table` (seat s: ``kinds[s]`` with ``weights[s]``; ``ws`` = (lookahead candidates,
    rollouts, the candidate workspace of :func:`~.agents.workspace`)), recorded as its final rows
    (n * N_FINAL, seat-major), then the two shop cards, the solo AI's score, how the game ended
    (:func:`ended_by`), the checkpoints recorded and the trajectory (K x n, K =
    :func:`checkpoint_bound`; :func:`records_batch`). Inlined into the core loop (a wrapper only: a
    compiled function of its own would be one more level at which numba optimises the whole game
    again, issue 47)."""
    candidates, rollouts, cand_mv, cand_val = ws
    n = T.rules.n_players
    traj = record[n * N_FINAL + 5 :].reshape(((record.shape[0] - n * N_FINAL - 5) // n, n))  # K rows, or 0
    S, rows, shops, ai, k = play_table(
        T, kinds, weights, candidates, rollouts, game_rng, agent_rng, cand_mv, cand_val, traj
    )
    for s in range(n):
        for c in range(N_FINAL):
            record[s * N_FINAL + c] = rows[s, c]
    record[n * N_FINAL] = shops[0]
    record[n * N_FINAL + 1] = shops[1]
    record[n * N_FINAL + 2] = ai
    record[n * N_FINAL + 3] = ended_by(S, T)
    record[n * N_FINAL + 4] = k


register_table(Table, play_seated)


def record_length(rules, trajectories: bool = True) -> int:
    """The length of a :func:`play_seated` record of a game of ``rules`` (without ``trajectories``
    room for none: :func:`play_seated` then records none)."""
    n = int(rules.n_players)
    return n * N_FINAL + 5 + (checkpoint_bound(rules) * n if trajectories else 0)


def records_batch(cfg: AguedaConfig, records: np.ndarray, n: int) -> GameBatch:
    """:func:`batch_of` a chunk of :func:`play_seated` records of ``n`` seats, with their trajectories
    (none when the records have no room for them, :func:`record_length`): ``standings`` float64[g, the
    most checkpoints of a game of the chunk, n], NaN after each game's last checkpoint."""
    base = n * N_FINAL
    rows = records[:, :base].reshape(-1, n, N_FINAL)
    shops, ai, ended = records[:, base : base + 2], records[:, base + 2], records[:, base + 3]
    batch = batch_of(cfg, rows, shops, ai, ended)
    if records.shape[1] == base + 5:
        return batch
    k = records[:, base + 4].copy()
    width = int(k.max()) if k.size else 0  # only the rows games used: the bound is the safety stop's
    standings = records[:, base + 5 : base + 5 + width * n].reshape(-1, width, n).astype(np.float64)
    standings[np.arange(width)[None, :] >= k[:, None]] = np.nan
    return dataclasses.replace(batch, standings=standings, checkpoints=k)


# Águeda's agents at a compiled table beside MCTS seats (``GameSpec.seat_agent``, ``game_agent``): code
# ``GAME_AGENT + kind`` (GREEDY or LOOKAHEAD), with the row (7 greedy weights, candidates, rollouts).


@nb.njit(cache=True)
def game_agent(code, S, T, row, out, rng):
    """The whole turn of a greedy or lookahead seat at a compiled table, as its decisions: the turn
    is planned as the fast path plans it (:func:`~.agents.choose_move` at the line; a turn already
    begun is completed by the constrained greedy), then walked on a copy of ``S`` decision by
    decision (:func:`_decide`; the decisions with a single option, which ``apply`` takes itself,
    are skipped) into ``out``. Returns their count, or -1 for a code that is no Águeda agent."""
    kind = code - GAME_AGENT
    if kind != GREEDY and kind != LOOKAHEAD:
        return -1
    rules = T.rules
    w = row[:7].copy()
    cand_mv = np.zeros((MAX_CANDIDATES, MOVE_LEN), np.int64)
    cand_val = np.zeros(MAX_CANDIDATES, np.float64)
    plan = np.zeros(MOVE_LEN, np.int64)
    W = S.copy()
    st = views(W, T)
    if W[H_PHASE] == PH_LINE:
        choose_move(st, rules, kind, w, int(row[7]), int(row[8]), rng, plan, cand_mv, cand_val)
    else:
        _constrained_greedy(W, rules, st, w, rng, plan, cand_mv, cand_val, False, FREE)
    buf = np.empty(T.max_moves, np.int64)
    k = 0
    while True:
        m = _plan_code(W, T, plan)
        out[k] = m
        k += 1
        done = _decide(W, T, m)
        while not done:
            ph = W[H_PHASE]
            if ph != PH_ORDER and ph != PH_TOURIST:
                break
            if _legal(W, T, buf) != 1:
                break
            done = _decide(W, T, buf[0])
        if done:
            return k


KERNEL = Kernel(
    to_move=to_move,
    legal=legal,
    apply=apply,
    is_over=is_over,
    scores=scores,
    returns=returns,
    heuristic=heuristic,
    determinize=determinize,
    policy=policy,
    ended_by=ended_by,
    move_scores=move_scores,
)


# --------------------------------------------------------------------------- Python hooks


def state(S: np.ndarray, T: Table) -> State:
    """The rules' State over ``S`` (views: writing to it writes to ``S``)."""
    return views(S, T)


def observation(S: np.ndarray, T: Table, seat: int) -> np.ndarray:
    """What ``seat`` sees: ``S`` with the tour-guide cards not yet revealed sorted (their order is
    the only secret, module docstring)."""
    out = S.copy()
    out[int(T.off[O_DECK]) + int(S[G0 + G_DECK]) : int(T.off[O_AI])].sort()
    return out


def shop_pair(cfg: AguedaConfig, shops: np.ndarray) -> str:
    """The label of a game's shop cards: the two names sorted and joined by " + "."""
    return " + ".join(sorted(cfg.shops.cards[int(i)].name for i in shops))


def outcome_of(cfg: AguedaConfig, rows: np.ndarray, shops: np.ndarray, ai: int, ended: int) -> Outcome:
    """:class:`Outcome` from :func:`~.scoring.final_rows` (columns F_*), the shop cards, the
    solo AI's score and how the game ended (:func:`ended_by`'s code)."""
    r = rows.tolist()
    n = len(r)
    components = {name: [row[j] for row in r] for j, name in enumerate(COMPONENTS)}
    totals = [sum(row[: len(COMPONENTS)]) for row in r]
    metrics = {
        name: [float(row[j]) for row in r]
        for name, j in (
            ("coins_gained", F_COINS_GAINED),
            ("coins_spent", F_COINS_SPENT),
            ("coins_left", F_COINS),
            ("umbrellas_returned", F_RETURNED),
            ("tourists_attracted", F_ATTRACTED),
            ("breaks", F_BREAKS),
            ("mural_tiles", F_MURAL_TILES),
            ("empty_spaces", F_EMPTY_COUNT),
        )
    }
    metrics["game_turns"] = [float(sum(row[F_TURNS] for row in r))] * n  # game length, every seat's turns
    if n == 1:
        metrics["ai_score"] = [float(ai)]
        metrics["solo_win"] = [1.0 if totals[0] > ai else 0.0]  # Solo: the AI wins ties
    return Outcome(
        scores=totals,
        tiebreak=[(-row[F_EMPTY_COUNT], row[F_MURAL_TILES], row[F_COINS]) for row in r],
        components=components,
        metrics=metrics,
        turns=[row[F_TURNS] for row in r],
        labels={"shops": [shop_pair(cfg, shops)] * n},
        ended_by=ENDED_BY[int(ended)],
    )


def batch_of(cfg: AguedaConfig, rows: np.ndarray, shops: np.ndarray, ai: np.ndarray, ended: np.ndarray) -> GameBatch:
    """:class:`~balancer.core.batch.GameBatch` of a chunk from :func:`play_seated`'s records: the
    same numbers, in the same order, as :func:`outcome_of` gives game by game."""
    g, n, _ = rows.shape
    totals = rows[:, :, : len(COMPONENTS)].sum(axis=2)
    metrics = {
        name: rows[:, :, j].astype(np.float64)
        for name, j in (
            ("coins_gained", F_COINS_GAINED),
            ("coins_spent", F_COINS_SPENT),
            ("coins_left", F_COINS),
            ("umbrellas_returned", F_RETURNED),
            ("tourists_attracted", F_ATTRACTED),
            ("breaks", F_BREAKS),
            ("mural_tiles", F_MURAL_TILES),
            ("empty_spaces", F_EMPTY_COUNT),
        )
    }
    metrics["game_turns"] = np.repeat(rows[:, :, F_TURNS].sum(axis=1, keepdims=True), n, axis=1).astype(np.float64)
    if n == 1:
        metrics["ai_score"] = ai[:, None].astype(np.float64)
        metrics["solo_win"] = (totals > ai[:, None]).astype(np.float64)  # Solo: the AI wins ties
    pairs, codes = np.unique(np.sort(shops, axis=1), axis=0, return_inverse=True)
    texts = tuple(shop_pair(cfg, pair) for pair in pairs)
    return GameBatch(
        scores=totals,
        tiebreak=np.stack([-rows[:, :, F_EMPTY_COUNT], rows[:, :, F_MURAL_TILES], rows[:, :, F_COINS]], axis=2),
        components={name: rows[:, :, j] for j, name in enumerate(COMPONENTS)},
        metrics=metrics,
        turns=rows[:, :, F_TURNS],
        labels={"shops": (np.repeat(codes.reshape(g, 1), n, axis=1), texts)},
        ended_by=ended.astype(np.int64),
    )


def outcome(S: np.ndarray, T: Table) -> Outcome:
    """Final Scoring and the tie-breakers (Winning the Game) per seat; solo, the AI's score too."""
    st = views(S, T)
    rules = T.rules
    ai = int(ai_score(st, rules)) if rules.solo else 0
    return outcome_of(config_of(T), final_rows(st, rules), st.shops, ai, ended_by(S, T))


def describe_turn(cfg: AguedaConfig, T: Table, mv: np.ndarray) -> str:
    """One line for a whole turn (rules' int64[MOVE_LEN], e.g. ``S[H_LAST:H_LAST + MOVE_LEN]``)."""
    names = cfg.umbrellas.colours
    line, row, k = int(mv[MV_LINE]), int(mv[MV_ROW]), int(mv[MV_K])
    order = [int(c) for c in mv[MV_ORDER : MV_ORDER + k]]
    if line < 0:
        take = "cannot take a line"
    else:
        d = int(T.rules.line_coins[line, k])
        coin = " (+1 coin)" if d > 0 else f" (pays {-d} coin)" if d < 0 else ""
        take = f"takes line {line + 1}{coin} and places {', '.join(names[c] for c in order)} in row {row + 1}"
    t, tr, tc = int(mv[MV_TOURIST]), int(mv[MV_TROW]), int(mv[MV_TCOL])
    if t == TAKE_BREAK:
        rest = "takes a break"
    elif t == ATTRACT_ONE:
        rest = f"attracts 1 tourist to row {tr + 1} scoring {names[tc]}"
    else:
        rest = f"attracts 2 tourists to row {tr + 1}"
    return f"{take}; {rest}"


def describe_move(S: np.ndarray, T: Table, move: int) -> str:
    """One line for decision ``move`` of the seat to move (before it is applied)."""
    cfg = config_of(T)
    names = cfg.umbrellas.colours
    st = views(S, T)
    rules = T.rules
    ph = int(S[H_PHASE])
    if ph == PH_LINE:
        if move == NO_LINE:
            return "cannot take a line"
        buf = np.zeros(MAX_LINE, np.int64)
        k = int(line_umbrellas(st.market, rules.line_cells, rules.line_len, int(move), buf))
        d = int(rules.line_coins[int(move), k])
        coin = " (+1 coin)" if d > 0 else f" (pays {-d} coin)" if d < 0 else ""
        return f"takes line {move + 1}{coin}: {', '.join(names[int(c)] for c in buf[:k])}"
    if ph == PH_ROW:
        return f"into row {move - M_ROW + 1}"
    if ph == PH_ORDER:
        k = int(S[H_MV + MV_K])
        u = S[H_MV + MV_ORDER : H_MV + MV_ORDER + k]
        return "places " + ", ".join(names[int(u[PERMS[k, move - M_ORDER, j]])] for j in range(k))
    t = move - M_TOURIST
    if t == 0:
        return "takes a break"
    r, j = (t - 1) // 3, (t - 1) % 3
    if j == 2:
        return f"attracts 2 tourists to row {r + 1}"
    tile = int(st.tile_at[int(S[G0 + G_SEAT]), r])
    return f"attracts 1 tourist to row {r + 1} scoring {names[int(rules.tile_col[tile, j])]}"


def turn_count(S: np.ndarray) -> int:
    """Whole turns played so far (every seat's)."""
    return int(S[G0 + G_MOVES])


def last_turn(S: np.ndarray) -> np.ndarray:
    """The last whole turn played (rules' int64[MOVE_LEN]; -1s before the first)."""
    return S[H_LAST : H_LAST + MOVE_LEN]


def phase(S: np.ndarray) -> int:
    """The decision asked (PH_LINE, PH_ROW, PH_ORDER, PH_TOURIST)."""
    return int(S[H_PHASE])


ENGINE = Engine(
    kernel=KERNEL,
    compile=compile,
    new_state=new_state,
    n_players=n_players,
    max_moves=max_moves,
    observation=observation,
    outcome=outcome,
    describe_move=describe_move,
    trajectory_buffer=trajectory_buffer,
    record_checkpoint=record_checkpoint,
)
"""Águeda's compiled interface (registered as ``SPEC.engine``)."""

__all__ = [
    "ENGINE",
    "KERNEL",
    "Table",
    "compile",
    "new_state",
    "views",
    "state",
    "play_table",
    "play_turn",
    "agent_decision",
    "plan_code",
    "NO_LINE",
    "M_ROW",
    "M_ORDER",
    "M_TOURIST",
    "PH_LINE",
    "PH_ROW",
    "PH_ORDER",
    "PH_TOURIST",
    "GREEDY",
    "LOOKAHEAD",
    "RANDOM",
]
