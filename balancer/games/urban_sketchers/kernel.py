"""Urban Sketchers' compiled game interface (:mod:`balancer.core.kernel`): the compiled engine of
:mod:`.fast` in the interface's shape. It adds no rule of its own: legality and transitions are
``fast.legal_moves`` and ``fast.apply_move``, Set Up 1-10 is ``fast.setup``, final scoring
``fast.final_components`` and ``fast.theme_tiles``; the readable reference engine of the tests
(``tests/games/urban_sketchers/us_reference/``, which no run imports) is the oracle they are held to.

**State** ``S``: the compiled engine's int64 buffer (``fast.state_shapes``). **Table** ``T``: a
:class:`Table` (the :class:`.fast.Layout` of ints, the int64 rule table, scratch for the legal
decisions in row form and for Efficient's options and the score components, and the heuristic's
scale).

**Moves**: the engine is already one decision at a time (the die and its action, then each Travel
step, pick-up and Wanderer, each card sketched with its sketchbook and its use of Efficient, each
bonus tile, resource, reward, extra theme, Funding flip and Set Up discard; ``rules.K_*``). A
decision ``(kind, a, b, c)`` is the int64 ``kind | a << 8 | (b + 1) << 24 | (c + 1) << 32`` (:func:`encode`,
:func:`decode`): ``kind`` 0-17 in bits 0-7, ``a`` (a die, card, space, slot, resource, theme, tile
type or pair: 0-65535) in bits 8-23, ``b`` (``action x 8 + space or sketchbook``, a sketchbook, a
display slot or an improvement mode: 0-254; -1 for a theme pair's money instead of a bonus tile)
as ``b + 1`` in bits 24-31, ``c + 1`` (``c``: -1 without Efficient,
else its option; Opportunist 0/1; a sketchbook) in bits 32-39. ``legal`` lists them in the reference's
order (the reference's ``rules.legal_moves``).

**Hidden information** (the rulebook's Set Up 4 and 10, Travel, Bonus Tiles): the order of the travel
deck and of the bonus-tile bag (their contents follow from what is on view: every card and tile not
on the board, in a hand, sketchbook, display or discard pile is in them), and the cards dealt face
down at Set Up 10 that are still in their owner's hand (cards picked up from the face-up travel
board, discards, sketchbooks, the display, money, resources, tiles and tracks are all on view).
``S`` records, per seat, how many cards at the front of the hand are still the face-down ones
(``secret``), and whether the deck has been rebuilt from the discard pile (``G_DECK_SEEN``: from then
on every card in it has been seen, so the face-down cards are exactly the cards nobody else has
seen). :func:`determinize` for a seat deals the other seats' face-down cards again, with the deck
until it has been rebuilt, from the cards that seat has not seen, gathered in card order and
shuffled; after a rebuild it shuffles the deck's (known) cards on their own; it always shuffles the
bag; counts never change. :func:`observation` is ``S`` with exactly those items blanked (-1), the
rebuilt deck given as its sorted contents, and the unused tail of the deck, bag and other seats' hands
(stale copies) blanked; determinize writes -1 there.

**Values**: ``scores`` are the points if the game ended now (final scoring, End of the Game 1-5);
``returns`` the win shares with the tie-breaker (most theme tiles, then a shared victory), as
``ranks_and_win_shares`` of the Outcome; Urban Sketchers has no solo game (2-4 players).
``heuristic``: per seat ``1 / (1 + exp(-margin / scale))``, margin = its value minus the best other
seat's (or, by ``agents.heuristic.contest``, the mean of that over every other seat, or a softmax
share), a seat's value being ``(1 - progress) x`` its score if the game ended now ``+ progress x``
the greedy agent's value of its holdings (:func:`.fast.position_value`: sketchbooks by what
publishing them would bring, the hand, money, resources, tiles, tracks; the greedy weights of
``agents.greedy``), ``returns`` once the game is over (``agents.heuristic.scale``, ``progress`` and
``contest`` in the YAML, agent parameters). The score if the game ended now is flat along the travel, sketch,
publish chain (money and resources count in fives, cards in hand nothing), the greedy value is not.

**Move scores** (``move_scores``): the greedy agent's own value of each legal decision, for the
search's priors and scored rollouts: the choice of a die by its turn completed with the greedy
agent's decisions (:func:`.fast.turn_values`, on every legal placement), a decision inside an action
by :func:`.fast.sub_values`, a Travel or Supply step 1 for greedy's rule's decision and 0 for the
others; the look-aheads draw from :class:`~balancer.core.fixed_draws.FixedDraws`, so they are
deterministic.

**Rollout policy** (``policy``): the die (or theme-tile pair) uniformly at random, every decision
inside the action (and the Set Up discards) the greedy agent's, which needs no copy of the state for
most of them (``fast.sub_move``). It costs about what uniform random play costs and plays far
better (measured on one core, 4 players, 400 playouts: from Set Up 745 playouts/s of 18.7 rounds
against 578 of 30.9 for uniform random decisions and about 170 of 10.6 for the greedy agent, whose
choice of a die plays every candidate action on a copy; from round 6 of greedy games 1,110 playouts/s
of 12.8 rounds against 1,205 of 16.7). As a player it beats uniform random play in 87% of
two-player and 81% of four-player games (200 each), and loses to greedy nearly always. Its die stays
uniform: choosing it by :func:`move_scores` would complete every legal placement's turn at each
choice of a die (about the greedy agent's cost), and the search's ``rollout: scores`` does exactly that
where it is wanted (``agents.mcts``). Only the search's ``rollout: policy`` calls it.

``greedy`` is the greedy agent's decision as a code with the shape ``(S, T, out, rng) -> move`` (for a
compiled table that seats it).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numba as nb
import numpy as np

from ...core.batch import GameBatch
from ...core.fixed_draws import FixedDraws
from ...core.game import Outcome
from ...core.kernel import ENDED_BY, RULES, TURN_CAP, Engine, Kernel
from ...core.table_loop import register_table
from . import fast
from .config import ACTIONS, COLOURS, UrbanSketchersConfig, bonus_kind_names
from .fast import (
    G_BAG_N,
    G_DECK_N,
    G_DECK_SEEN,
    G_END,
    G_PHASE,
    G_ROUND,
    G_SEAT,
    ST_PAID_BANK,
    ST_PAID_PLAYERS,
    ST_PRESTIGE_MONEY,
    ST_PUB_COUNT,
    ST_PUB_SIZES,
    ST_RECEIVED,
    ST_TURNS,
    ST_WHITE,
)
from .rules import (
    K_BONUS,
    K_BONUS_MONEY,
    K_END,
    K_EXTRA_THEME,
    K_FUND,
    K_IMPROVE,
    K_IMPROVE_MONEY,
    K_PASS,
    K_PICK,
    K_PLACE,
    K_RESOURCE,
    K_SETUP_DISCARD,
    K_SETUP_DONE,
    K_SKETCH,
    K_STEP,
    K_THEME_PAIR,
    K_UNFLIP,
    K_WANDER,
    P_MAIN,
    P_OVER,
    P_SUPPLY,
    P_TRAVEL,
    SUPPLY,
    Move,
    Rules,
    compile_rules,
)
from .scoring import COMPONENTS

jit = nb.njit(cache=True)
inline = nb.njit(cache=True, inline="always")  # thin wrappers: inlined, no library of their own (fast.py)

IMPROVEMENT_NAMES = ("travel", "sketch", "publish", "funding", "supply")

# T.contest: whom the heuristic measures a seat's value against (agents.heuristic.contest)
CONTEST_BEST = 0
"""The best other seat: sigmoid of the margin over it."""
CONTEST_PAIRWISE = 1
"""Every other seat: the mean of the sigmoids of the margins over each."""
CONTEST_SHARE = 2
"""Every seat: a softmax share of the values."""
CONTESTS = {"best": CONTEST_BEST, "pairwise": CONTEST_PAIRWISE, "share": CONTEST_SHARE}


class Table(NamedTuple):
    """The rule table ``T`` of the interface: a variant compiled for a player count."""

    L: fast.Layout
    """Rule numbers, widths and the offsets of the fields of ``S`` and of the tables in ``R``."""
    R: np.ndarray
    """int64[:]: the rule tables (``fast.compile_fast``)."""
    mv: np.ndarray
    """int64[L.max_moves, 4]: scratch, the legal decisions as rows."""
    opts: np.ndarray
    """int64[10, 5]: scratch, Efficient's options."""
    comps: np.ndarray
    """int64[5, n]: scratch, score components."""
    scale: float
    """Points: the heuristic's scale (``agents.heuristic.scale``)."""
    W: fast.FastWeights
    """The greedy agent's weights (``agents.greedy``), for :func:`greedy` and :func:`policy`."""
    ws: fast.Workspace
    """Scratch of the greedy agent's look-aheads (and of :func:`move_scores`)."""
    progress: float
    """The heuristic's weight of the greedy value of a seat's holdings against its points if the game
    ended now (``agents.heuristic.progress``)."""
    contest: int
    """Whom a seat's value is measured against in the heuristic (``agents.heuristic.contest``):
    :data:`CONTEST_BEST`, :data:`CONTEST_PAIRWISE` or :data:`CONTEST_SHARE`."""


# --------------------------------------------------------------------------------------------------
# moves


@inline
def encode(kind, a, b, c):
    """The int64 code of decision ``(kind, a, b, c)`` (module docstring)."""
    return np.int64(kind) | (np.int64(a) << 8) | (np.int64(b + 1) << 24) | (np.int64(c + 1) << 32)


@inline
def decode(move):
    """``(kind, a, b, c)`` of an int64 code (:func:`encode`)."""
    return move & 255, (move >> 8) & 65535, ((move >> 24) & 255) - 1, ((move >> 32) & 255) - 1


def encode_move(move: Move) -> int:
    """:func:`encode` of a reference decision (a 4-tuple), as a Python int."""
    kind, a, b, c = (int(x) for x in move)
    return kind | a << 8 | (b + 1) << 24 | (c + 1) << 32


def decode_move(code: int) -> Move:
    """:func:`decode` in Python: the reference decision ``(kind, a, b, c)`` of a code."""
    code = int(code)
    return code & 255, (code >> 8) & 65535, ((code >> 24) & 255) - 1, ((code >> 32) & 255) - 1


# --------------------------------------------------------------------------------------------------
# the compiled interface


@inline
def to_move(S, T):
    """The seat whose decision it is (0-based)."""
    return S[G_SEAT]


@inline
def is_over(S, T):
    """True once final scoring is due (End of the Game)."""
    return S[G_PHASE] == P_OVER


@inline
def legal(S, T, out):
    """The legal decisions' codes into ``out`` (int64[>= L.max_moves]), in the reference's order;
    their number (0 once the game is over)."""
    m = fast.legal_moves(S, T.L, T.R, T.mv, T.opts)
    mv = T.mv
    for i in range(m):
        out[i] = encode(mv[i, 0], mv[i, 1], mv[i, 2], mv[i, 3])
    return m


@inline
def apply(S, T, move, rng):
    """Play decision ``move`` (one of :func:`legal`) in place; chance (refills, reshuffles, the next
    round's dice) from ``rng``."""
    kind, a, b, c = decode(move)
    fast.apply_move(S, T.L, T.R, kind, a, b, c, rng, T.opts)


@inline
def scores(S, T, out):
    """Points per seat if the game ended now (final at the end) into ``out`` (int64[n])."""
    comps = T.comps
    fast.final_components(S, T.L, T.R, comps)
    for p in range(T.L.n):
        out[p] = comps[0, p] + comps[1, p] + comps[2, p] + comps[3, p] + comps[4, p]


@inline
def _shares(S, T, total, out):
    """Win shares into ``out`` for the points ``total``: 1/k to each of the k seats tied first on
    points and theme tiles (Determine Victory), else 0; under ``final_scoring.tie: later_seat`` the
    seat latest in turn order among those wins alone (k = 1)."""
    n = T.L.n
    later = T.L.tie_later_seat != 0
    best_s, best_t, best_p = -1, -1, -1
    for p in range(n):
        t = fast.theme_tiles(S, T.L, p)
        if total[p] > best_s or (total[p] == best_s and (t > best_t or (t == best_t and later))):
            best_s, best_t, best_p = total[p], t, p
    k = 0
    for p in range(n):
        if total[p] == best_s and fast.theme_tiles(S, T.L, p) == best_t and (not later or p == best_p):
            k += 1
    for p in range(n):
        first = total[p] == best_s and fast.theme_tiles(S, T.L, p) == best_t and (not later or p == best_p)
        out[p] = 1.0 / k if first else 0.0


@inline
def returns(S, T, out):
    """The win shares (tie-breaker included) into ``out`` (float64[n]); meaningful at the end."""
    total = np.empty(T.L.n, np.int64)
    scores(S, T, total)
    _shares(S, T, total, out)


@jit
def heuristic(S, T, out):
    """Per seat a value in [0, 1] from the seats' values, a seat's value being ``(1 - progress) x``
    its points if the game ended now ``+ progress x`` the greedy agent's value of its holdings
    (:func:`.fast.position_value`: points and prestige so far, money, resources, theme and
    opportunity tiles, improvements, the hand, and each sketchbook by what publishing it would
    bring); :func:`returns` once the game is over. By ``T.contest``: 1 / (1 + exp(-margin / scale)),
    margin = its value minus the best other seat's (:data:`CONTEST_BEST`); the mean over the other
    seats q of 1 / (1 + exp(-(v_p - v_q) / scale)) (:data:`CONTEST_PAIRWISE`); exp(v_p / scale) / the
    sum over every seat of exp(v_q / scale) (:data:`CONTEST_SHARE`). At two players all three agree."""
    if S[G_PHASE] == P_OVER:
        returns(S, T, out)
        return
    n = T.L.n
    total = np.empty(n, np.int64)
    scores(S, T, total)
    value = np.empty(n)
    for p in range(n):
        value[p] = (1.0 - T.progress) * total[p]
        if T.progress > 0.0:
            value[p] += T.progress * fast.position_value(S, T.L, T.R, T.W, p)
    if T.contest == CONTEST_SHARE:
        top = value.max()
        norm = 0.0
        for p in range(n):
            out[p] = np.exp((value[p] - top) / T.scale)
            norm += out[p]
        for p in range(n):
            out[p] /= norm
        return
    for p in range(n):
        if T.contest == CONTEST_PAIRWISE and n > 1:
            acc = 0.0
            for q in range(n):
                if q != p:
                    acc += 1.0 / (1.0 + np.exp(-(value[p] - value[q]) / T.scale))
            out[p] = acc / (n - 1)
            continue
        other = -1e300
        for q in range(n):
            if q != p and value[q] > other:
                other = value[q]
        margin = value[p] - other if n > 1 else value[p]
        out[p] = 1.0 / (1.0 + np.exp(-margin / T.scale))


@inline
def _gather(S, first, count, mark):
    """The ``count`` ids from S[first] into ``mark`` (bool[ids]) ..."""
    for i in range(count):
        mark[S[first + i]] = True


@inline
def _sorted_marked(mark, pool):
    """... and back in id order into ``pool``; returns their number."""
    k = 0
    for x in range(mark.shape[0]):
        if mark[x]:
            pool[k] = x
            k += 1
            mark[x] = False
    return k


@inline
def _reshuffle_in_place(S, first, count, n_ids, rng):
    """Put the ``count`` ids at S[first] in id order, then in an order drawn from ``rng``."""
    mark = np.zeros(n_ids, np.bool_)
    pool = np.empty(n_ids, np.int64)
    _gather(S, first, count, mark)
    k = _sorted_marked(mark, pool)
    perm = pool[:k].copy()
    rng.shuffle(perm)
    for i in range(k):
        S[first + i] = perm[i]


@jit
def determinize(S, T, seat, rng):
    """Resample in place what ``seat`` cannot see (module docstring): the other seats' face-down
    cards (with the deck's cards until the deck has been rebuilt) dealt again from the cards ``seat``
    has not seen, the deck's order, the bag's order; the unused tails of the deck, the bag and the
    other seats' hands become -1."""
    L = T.L
    nc = L.n_cards
    seen_deck = S[G_DECK_SEEN] != 0
    mark = np.zeros(nc, np.bool_)
    pool = np.empty(nc, np.int64)
    for q in range(L.n):
        if q != seat:
            _gather(S, L.o_hand + q * nc, S[L.o_secret + q], mark)
    if not seen_deck:
        _gather(S, L.o_deck, S[G_DECK_N], mark)
    k = _sorted_marked(mark, pool)
    unseen = pool[:k].copy()
    rng.shuffle(unseen)
    j = 0
    for q in range(L.n):
        if q != seat:
            row = L.o_hand + q * nc
            for i in range(S[L.o_secret + q]):
                S[row + i] = unseen[j]
                j += 1
            for i in range(S[L.o_hand_n + q], nc):
                S[row + i] = -1
    if seen_deck:
        _reshuffle_in_place(S, L.o_deck, S[G_DECK_N], nc, rng)
    else:
        for i in range(S[G_DECK_N]):
            S[L.o_deck + i] = unseen[j]
            j += 1
    for i in range(S[G_DECK_N], nc):
        S[L.o_deck + i] = -1
    _reshuffle_in_place(S, L.o_bag, S[G_BAG_N], L.n_tiles, rng)
    for i in range(S[G_BAG_N], L.n_tiles):
        S[L.o_bag + i] = -1


@inline
def policy(S, T, out, rng):
    """The rollout policy: the choice of a die (or a theme-tile pair) uniformly at random (one
    ``rng.random()``), every decision after it, inside the action and at Set Up, the greedy agent's
    (:func:`.fast.sub_move`: Travel towards the best card, Supply what the hand lacks, cards, bonus
    tiles, rewards and discards one decision ahead; ties drawn from ``rng``)."""
    if S[G_PHASE] == P_MAIN:
        m = legal(S, T, out)
        return out[min(int(rng.random() * m), m - 1)]
    kind, a, b, c = fast.sub_move(S, T.L, T.R, T.W, rng, T.ws)
    return encode(kind, a, b, c)


@inline
def _die_scores(S, T, moves, n, out):
    """:func:`move_scores` at the choice of a die: :func:`.fast.turn_values` of each choice
    ``moves[:n]`` into ``out[:n]``, completing once the turn of placements that leave the mover the
    same turn to complete, which therefore share the value: on Supply, the same number of resources
    to take (``|die - the space's tile|``: any die, any space); elsewhere the same action, sketchbook
    and Opportunist at the same cost with another die (a white die of the same distance, or the
    coloured die and a free white one). They differ only in which die and Supply space are used, the
    colour statistics and the coloured die's record, which nothing after the placement reads until
    the turn is over, nor :func:`.fast.position_value`."""
    L = T.L
    p = S[G_SEAT]
    rows = T.ws.cand
    keys = np.empty(n, np.int64)
    rep = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        kind, a, b, c = decode(moves[i])
        key = -1  # a theme-tile pair or a pass: its own
        if kind == K_PLACE:
            action = b // 8
            if action == SUPPLY:
                key = (SUPPLY * 8 * 2) << 16 | abs(S[L.o_dice + a] - S[L.o_sup_tile + b % 8])
            else:
                key = (b * 2 + c) << 16 | fast.place_cost(S, L, p, a, action)[0]
        j = m
        if key >= 0:
            for k in range(m):
                if keys[k] == key:
                    j = k
                    break
        if j == m:
            keys[m] = key
            rows[m, 0], rows[m, 1], rows[m, 2], rows[m, 3] = kind, a, b, c
            m += 1
        rep[i] = j
    values = np.empty(m)
    fast.turn_values(S, L, T.R, T.W, rows, m, FixedDraws(), T.ws, values)
    for i in range(n):
        out[i] = values[rep[i]]


@jit
def move_scores(S, T, moves, n, out):
    """The greedy agent's own value of each legal decision ``moves[:n]`` (codes) into ``out[:n]``
    (points: the value of the mover's holdings, :func:`.fast.position_value`, not a gain; siblings
    share the base):

    - the choice of a die (or theme-tile pair, or a pass) in the main phase: its turn completed by
      the greedy agent's decisions, valued as the greedy agent values its candidates
      (:func:`.fast.turn_values`, for every legal placement, not only the greedy agent's cheapest
      die per action; placements that leave the same turn to complete are completed once,
      :func:`_die_scores`);
    - a decision inside Sketch, Funding, a reward, a bonus tile or a Set Up discard: its value as
      :func:`.fast.sub_move` computes it (:func:`.fast.sub_values`);
    - a step of Travel or Supply, where the greedy agent follows a rule, not a value
      (:func:`.fast.travel_move`, :func:`.fast.supply_move`): 1 for the rule's decision, 0 for the others.

    The look-aheads draw from a :class:`~balancer.core.fixed_draws.FixedDraws` (the greedy agent's
    exact ties, :func:`.fast.pick_best`, go to the first best decision; chance to fixed outcomes, which
    the greedy value of the mover's holdings, :func:`.fast.position_value`, does not read), so a move's
    score depends on the position only, not on the other moves listed; ``S`` is restored (uses ``T.ws``)."""
    if n == 0:
        return
    L = T.L
    ph = S[G_PHASE]
    if ph == P_TRAVEL or ph == P_SUPPLY:
        p = S[G_SEAT]
        if ph == P_TRAVEL:
            kind, a, b, c = fast.travel_move(S, L, T.R, T.W, p)
        else:
            kind, a, b, c = fast.supply_move(S, L, T.R, p)
        mine = encode(kind, a, b, c)
        for i in range(n):
            out[i] = 1.0 if moves[i] == mine else 0.0
        return
    if ph == P_MAIN:
        _die_scores(S, T, moves, n, out)
        return
    rows = T.ws.cand
    for i in range(n):
        rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3] = decode(moves[i])
    saved = S.copy()  # sub_values' quick values append to a list and take it back, leaving a stale slot past its count
    fast.sub_values(S, L, T.R, T.W, rows, n, FixedDraws(), T.ws, out)
    S[:] = saved


@inline
def greedy(S, T, out, rng):
    """The ``greedy`` agent's decision (:func:`.fast.choose`, the same decisions and draws as
    the reference's ``agents.GreedyAgent``) as a code; ``out`` is unused (the shape of a compiled table's
    game agent)."""
    kind, a, b, c = fast.choose(S, T.L, T.R, T.W, 1, rng, T.ws)
    return encode(kind, a, b, c)


GAME_AGENT_GREEDY = 17
"""The code of a ``greedy`` seat at a compiled table beside MCTS seats (``GameSpec.seat_agent``)."""


@jit
def game_agent(code, S, T, row, out, rng):
    """A ``greedy`` seat's decision at a compiled table (:func:`greedy`) into ``out[0]``; returns 1,
    or -1 for a code that is not greedy's."""
    if code != GAME_AGENT_GREEDY:
        return -1
    out[0] = greedy(S, T, out, rng)
    return 1


@inline
def ended_by(S, T):
    """How a finished game ended: ``RULES`` when the Total published sketchbooks token reached its
    space (End of the Game), else ``TURN_CAP``: the ``end.max_rounds`` safety cap (not a rule) ended it."""
    return RULES if S[G_END] != 0 else TURN_CAP


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


# --------------------------------------------------------------------------------------------------
# compiling a variant (cached), and the Python hooks


class _Compiled(NamedTuple):
    cfg: UrbanSketchersConfig
    rules: Rules
    table: Table
    weights: fast.FastWeights


_BY_CFG: dict[tuple[int, int], _Compiled] = {}
_BY_TABLE: dict[int, _Compiled] = {}


def _entry(cfg: UrbanSketchersConfig, n: int) -> _Compiled:
    hit = _BY_CFG.get((id(cfg), n))
    if hit is not None and hit.cfg is cfg:
        return hit
    rules = compile_rules(cfg, n)  # ValueError for an unsupported player count
    lay, table = fast.compile_fast(rules)
    if lay.n_cards > 65535 or lay.spaces > 65535 or lay.display > 255 or lay.books > 255:
        raise ValueError(
            "urban_sketchers: the move code holds at most 65,535 cards and spaces, 255 display slots and sketchbooks"
        )
    weights = fast.fast_weights(cfg, rules)
    T = Table(
        L=lay,
        R=table,
        mv=np.zeros((lay.max_moves, 4), np.int64),
        opts=np.zeros((10, 5), np.int64),
        comps=np.zeros((5, n), np.int64),
        scale=float(cfg.agents.heuristic.scale),
        W=weights,
        ws=fast.workspace(lay),
        progress=float(cfg.agents.heuristic.progress),
        contest=CONTESTS[cfg.agents.heuristic.contest],
    )
    hit = _Compiled(cfg, rules, T, weights)
    _BY_CFG[(id(cfg), n)] = hit
    _BY_TABLE[id(T)] = hit
    return hit


def compile(cfg: UrbanSketchersConfig, n_players: int) -> Table:  # noqa: A001 (the Engine hook's name)
    """The interface's table ``T`` of ``cfg`` for ``n_players`` (cached per config object and count).
    ValueError for an unsupported player count."""
    return _entry(cfg, n_players).table


def rules_for(cfg: UrbanSketchersConfig, n: int) -> Rules:
    """The variant's numbers (:func:`.rules.compile_rules`), cached with ``T``."""
    return _entry(cfg, n).rules


def fast_tables(cfg: UrbanSketchersConfig, n: int) -> tuple[fast.Layout, np.ndarray, fast.FastWeights]:
    """(layout, rule table, greedy weights) of the compiled engine for ``n`` players (cached)."""
    hit = _entry(cfg, n)
    return hit.table.L, hit.table.R, hit.weights


def variant_of(T: Table) -> tuple[UrbanSketchersConfig, Rules, fast.FastWeights]:
    """(config, :class:`.rules.Rules`, greedy weights) behind a table made by :func:`compile`."""
    hit = _BY_TABLE.get(id(T))
    if hit is None or hit.table is not T:
        raise ValueError("this table was not made by urban_sketchers.kernel.compile")
    return hit.cfg, hit.rules, hit.weights


def new_state(T: Table, rng: np.random.Generator) -> np.ndarray:
    """A game after Set Up 1-10 (compiled, ``fast.setup``; the reference's draws from ``rng``); the
    Set Up 11 discards are its first decisions."""
    S = np.empty(T.L.size, np.int64)
    fast.setup(S, T.L, T.R, rng)
    return S


def n_players(T: Table) -> int:
    return T.L.n


def max_moves(T: Table) -> int:
    return T.L.max_moves


def observation(S: np.ndarray, T: Table, seat: int) -> np.ndarray:
    """What ``seat`` sees: ``S`` with the deck, the bag and the other seats' face-down cards blanked
    (-1), the deck given as its sorted contents once it has been rebuilt from the discards, and the
    unused tails of the other seats' hands blanked (module docstring)."""
    L = T.L
    O = S.copy()
    nc = L.n_cards
    deck = O[L.o_deck : L.o_deck + nc]
    k = int(S[G_DECK_N])
    contents = np.sort(S[L.o_deck : L.o_deck + k]) if S[G_DECK_SEEN] else None
    deck[:] = -1
    if contents is not None:
        deck[:k] = contents
    O[L.o_bag : L.o_bag + L.n_tiles] = -1
    for q in range(L.n):
        if q != seat:
            row = L.o_hand + q * nc
            O[row : row + int(S[L.o_secret + q])] = -1
            O[row + int(S[L.o_hand_n + q]) : row + nc] = -1
    return O


def _per_seat(S: np.ndarray, at: int, n: int, width: int) -> np.ndarray:
    return S[at : at + n * width].reshape(n, width)


def outcome(S: np.ndarray, T: Table) -> Outcome:
    """Final scores (End of the Game 1-5, compiled), components, tie-breaker (most theme tiles) and
    metrics of a finished game in ``S``."""
    L = T.L
    n = L.n
    comps = np.zeros((5, n), np.int64)
    fast.final_components(S, L, T.R, comps)
    scores_ = [int(x) for x in comps.sum(axis=0)]
    st = _per_seat(S, L.o_st, n, 8)
    acts, cols, imps = (_per_seat(S, at, n, 5) for at in (L.o_st_actions, L.o_st_colours, L.o_st_imp))
    themes = _per_seat(S, L.o_th_up, n, 4) + _per_seat(S, L.o_th_down, n, 4)

    def col(values) -> list[float]:
        return [float(x) for x in values]

    metrics: dict[str, list[float]] = {
        "game_rounds": [float(S[G_ROUND] + 1)] * n,
        "paid_players": col(st[:, ST_PAID_PLAYERS]),
        "paid_bank": col(st[:, ST_PAID_BANK]),
        "received_from_players": col(st[:, ST_RECEIVED]),
    }
    for a, name in enumerate(ACTIONS):
        metrics[f"actions_{name}"] = col(acts[:, a])
    for c, name in enumerate((*COLOURS, "white")):
        metrics[f"dice_{name}"] = col(cols[:, c])
    metrics["white_dice_on_actions"] = col(st[:, ST_WHITE])
    metrics["published"] = col(st[:, ST_PUB_COUNT])
    metrics["mean_publish_size"] = [
        float(st[p, ST_PUB_SIZES]) / float(st[p, ST_PUB_COUNT]) if st[p, ST_PUB_COUNT] else 0.0 for p in range(n)
    ]
    for t, name in enumerate(IMPROVEMENT_NAMES):
        metrics[f"improvement_{name}"] = col(imps[:, t])
    metrics["prestige_overflow_money"] = col(st[:, ST_PRESTIGE_MONEY])
    return Outcome(
        scores=scores_,
        tiebreak=[(int(x), p) if L.tie_later_seat else (int(x),) for p, x in enumerate(themes.sum(axis=1))],
        components={k: [int(x) for x in comps[i]] for i, k in enumerate(COMPONENTS)},
        metrics=metrics,
        turns=[int(x) for x in st[:, ST_TURNS]],
        ended_by=ENDED_BY[int(ended_by(S, T))],
    )


def _tiebreak_keys(themes: np.ndarray, later_seat: bool) -> np.ndarray:
    """Tie-breaker keys int64[g, n, k] from the theme tiles int64[g, n]: the theme tiles, then under
    ``final_scoring.tie: later_seat`` the seat index (later in turn order is better)."""
    keys = themes[:, :, None]
    if not later_seat:
        return keys
    seats = np.broadcast_to(np.arange(themes.shape[1], dtype=np.int64), themes.shape)[:, :, None]
    return np.concatenate([keys, seats], axis=2)


@inline  # into the core loop's call (table_loop.register_table): one library fewer above the game
def play_seated(T, kinds, rows, ws, game_rng, agent_rng, record):
    """Urban Sketchers' table for the core loop (:mod:`balancer.core.table_loop`): one game set up
    (:func:`.fast.setup`) and played (:func:`.fast.play`, seat s: agent ``kinds[s]`` of
    :data:`.fast.AGENT_KINDS`; ``rows`` unused) as :func:`play_game_fast` plays it, with ``ws`` =
    (the greedy weights, a :class:`.fast.Workspace`). Recorded as the finished state (``L.size``),
    its :func:`.fast.final_components` (5 * n, component-major), then its trajectory (``L.max_rounds``
    x n, round-major: each seat's points at the end of every round, :func:`.fast.play`'s ``trail``;
    rows past the game's last round 0): :func:`records_batch`."""
    L = T.L
    W, fws = ws
    S = np.empty(L.size, np.int64)
    fast.setup(S, L, T.R, game_rng)
    trail = np.zeros((L.max_rounds, L.n), np.int64)
    fast.play(S, L, T.R, W, kinds, game_rng, agent_rng, fws, np.zeros((0, 4), np.int64), trail)
    c = np.zeros((5, L.n), np.int64)
    fast.final_components(S, L, T.R, c)
    record[: L.size] = S
    record[L.size : L.size + 5 * L.n] = c.ravel()
    record[L.size + 5 * L.n :] = trail.ravel()


register_table(Table, play_seated)


def record_length(T: Table) -> int:
    """The length of a :func:`play_seated` record of a game of ``T``: the state, the final components
    and a trajectory row per round up to the ``end.max_rounds`` safety stop (no game plays more, so no
    checkpoint is ever left out)."""
    return int(T.L.size) + 5 * int(T.L.n) + int(T.L.max_rounds) * int(T.L.n)


def records_batch(records: np.ndarray, T: Table, trajectories: bool = True) -> GameBatch:
    """:func:`batch_of` a chunk of :func:`play_seated` records of games of ``T``, with their
    trajectories (:func:`trajectories_of`) unless ``trajectories`` is False."""
    size, n = int(T.L.size), int(T.L.n)
    batch = batch_of(records[:, :size], records[:, size : size + 5 * n].reshape(-1, 5, n), T)
    if not trajectories:
        return batch
    trail = records[:, size + 5 * n :].reshape(-1, int(T.L.max_rounds), n)
    standings, checkpoints = trajectories_of(trail, records[:, G_ROUND] + 1)
    return dataclasses.replace(batch, standings=standings, checkpoints=checkpoints)


def trajectories_of(trail: np.ndarray, rounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``GameBatch.standings`` and ``checkpoints`` of games whose :func:`.fast.play` ``trail`` is
    ``trail`` (int64[g, m, n]) and that lasted ``rounds`` (int64[g], 1..m): each seat's points at the end
    of every round, as float64[g, K, n] (K the most rounds of any game, NaN past a game's last)."""
    rounds = np.asarray(rounds, np.int64)
    k = int(rounds.max(initial=1))
    out = trail[:, :k, :].astype(np.float64)
    out[np.arange(k)[None, :] >= rounds[:, None]] = np.nan
    return out, rounds


def batch_of(states: np.ndarray, comps: np.ndarray, T: Table) -> GameBatch:
    """:class:`~balancer.core.batch.GameBatch` of finished games (``states`` int64[g, L.size], their
    components int64[g, 5, n], from :func:`play_seated`'s records): the numbers :func:`outcome`
    gives game by game, in the same order, computed over the whole chunk at once."""
    L = T.L
    n = L.n
    g = states.shape[0]

    def per_seat(at: int, width: int) -> np.ndarray:
        return states[:, at : at + n * width].reshape(g, n, width)

    st = per_seat(L.o_st, 8)
    acts, cols, imps = (per_seat(at, 5) for at in (L.o_st_actions, L.o_st_colours, L.o_st_imp))
    themes = (per_seat(L.o_th_up, 4) + per_seat(L.o_th_down, 4)).sum(axis=2)
    metrics: dict[str, np.ndarray] = {
        "game_rounds": np.repeat(states[:, G_ROUND : G_ROUND + 1] + 1, n, axis=1),
        "paid_players": st[:, :, ST_PAID_PLAYERS],
        "paid_bank": st[:, :, ST_PAID_BANK],
        "received_from_players": st[:, :, ST_RECEIVED],
    }
    for a, name in enumerate(ACTIONS):
        metrics[f"actions_{name}"] = acts[:, :, a]
    for c, name in enumerate((*COLOURS, "white")):
        metrics[f"dice_{name}"] = cols[:, :, c]
    metrics["white_dice_on_actions"] = st[:, :, ST_WHITE]
    metrics["published"] = st[:, :, ST_PUB_COUNT]
    count = st[:, :, ST_PUB_COUNT].astype(np.float64)
    metrics["mean_publish_size"] = np.divide(
        st[:, :, ST_PUB_SIZES].astype(np.float64), count, out=np.zeros_like(count), where=count != 0
    )
    for t, name in enumerate(IMPROVEMENT_NAMES):
        metrics[f"improvement_{name}"] = imps[:, :, t]
    metrics["prestige_overflow_money"] = st[:, :, ST_PRESTIGE_MONEY]
    return GameBatch(
        scores=comps.sum(axis=1),
        tiebreak=_tiebreak_keys(themes, L.tie_later_seat != 0),
        components={k: comps[:, i, :] for i, k in enumerate(COMPONENTS)},
        metrics={k: v.astype(np.float64) for k, v in metrics.items()},
        turns=st[:, :, ST_TURNS],
        ended_by=np.where(states[:, G_END] != 0, RULES, TURN_CAP).astype(np.int64),
    )


def describe(S: np.ndarray, T: Table, move: Move) -> str:
    """One line of a transcript for decision ``move`` ``(kind, a, b, c)`` (before it is applied) in
    the compiled state ``S`` of table ``T``, in the YAML's names: cards by their ``id``, bonus tiles
    by their ``bonus_tiles.mix`` kind, money amounts of the variant. Everything it names is read
    from ``S`` and the rule table ``T.R`` through the layout ``T.L``."""
    cfg = variant_of(T)[0]
    L, R = T.L, T.R
    kind, a, b, c = move
    res, themes = cfg.resources.names, cfg.themes.names
    p = int(S[G_SEAT])

    def card(index: int) -> str:
        return f"card {cfg.cards.deck[int(index)].id}"

    if kind == K_PLACE:
        action, arg = divmod(b, 8)
        colour = (*COLOURS, "white")[int(S[L.o_dcol + a])]
        text = f"places the {colour} {int(S[L.o_dice + a])} on {ACTIONS[action]}"
        if action == 2:
            text += f" (sketchbook {arg + 1}, {int(S[L.o_books_n + p * L.books + arg])} cards)"
        elif action == 4:
            text += f" (space {arg + 1}, tile {int(S[L.o_sup_tile + arg])})"
        return text + (", flipping Opportunist" if c else "")
    if kind == K_SKETCH:
        eff = f", Efficient off {res[c // 4]} and {res[c % 4]}" if c >= 0 else ""
        return f"sketches {card(a)} into sketchbook {b + 1}{eff}"
    benefit = int(R[L.t_pairs + 3 * a + 2]) if kind == K_THEME_PAIR else -1
    texts = {
        K_SETUP_DISCARD: lambda: f"discards {card(a)} for its resources",
        K_SETUP_DONE: lambda: "keeps the rest of the hand",
        K_THEME_PAIR: lambda: (
            f"flips a theme pair for {cfg.sketch.money_instead_of_bonus} money instead of a bonus tile"
            if benefit == 1 and b < 0
            else f"flips a theme pair for {('an unflip', 'a bonus tile', 'a Prestige space')[benefit]}"
        ),
        K_PASS: lambda: "has no die to place and passes",
        K_STEP: lambda: f"steps to space {a + 1}",
        K_PICK: lambda: f"picks up {card(S[L.o_board + S[L.o_pos + p]])}",
        K_WANDER: lambda: f"flips Wanderer to space {a + 1}",
        K_END: lambda: "ends the action",
        K_BONUS: lambda: (
            f"takes bonus tile {bonus_kind_names(cfg)[int(R[L.t_tile_kind + S[L.o_display + a]])]} "
            f"into sketchbook {b + 1}"
        ),
        K_BONUS_MONEY: lambda: f"takes {cfg.sketch.money_instead_of_bonus} money instead of a bonus tile",
        K_FUND: lambda: f"takes funding, flipping {a} theme tile(s)",
        K_RESOURCE: lambda: f"takes {res[a]}",
        K_EXTRA_THEME: lambda: f"takes the extra theme tile {themes[a]}",
        K_UNFLIP: lambda: f"unflips {('Wanderer', 'Efficient', 'Opportunist')[a]}",
        K_IMPROVE: lambda: (
            f"{('takes', 'flips to advanced', 'takes advanced')[b]} the {IMPROVEMENT_NAMES[a]} improvement"
        ),
        K_IMPROVE_MONEY: lambda: f"takes {cfg.tracks.improvement_money} money instead of an improvement",
    }
    return texts[kind]()


def describe_move(S: np.ndarray, T: Table, move: int) -> str:
    """One transcript line for decision ``move`` (a code) before it is applied (:func:`describe`)."""
    return describe(S, T, decode_move(move))


def trajectory_buffer(T: Table) -> np.ndarray:
    """``Engine.trajectory_buffer``: int64[L.max_rounds, n] zeros (a row per round up to the safety stop)."""
    return np.zeros((int(T.L.max_rounds), int(T.L.n)), np.int64)


@nb.njit(cache=True)
def record_checkpoint(S, T, traj, k):
    """``Engine.record_checkpoint`` for the generic loop (a table with a search seat): after a move that
    made checkpoint ``k`` due (:func:`.fast.checkpoint_due`, as :func:`.fast.play` records), row ``k`` of
    ``traj`` gets each seat's points if the game ended now (:func:`scores`) and ``k + 1`` is returned;
    else ``k``. Rows past the safety stop's are not kept, as in :func:`.fast.play`."""
    if fast.checkpoint_due(S, k):
        if k < traj.shape[0]:
            scores(S, T, traj[k])
        return k + 1
    return k


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
"""Urban Sketchers' compiled interface (registered as ``SPEC.engine``)."""
