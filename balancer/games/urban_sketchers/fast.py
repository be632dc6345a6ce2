"""Urban Sketchers compiled engine: the game's rules and its ``random`` and ``greedy`` agents in
numba, the engine every run plays on. It translates the readable reference engine the tests hold it
to (``tests/games/urban_sketchers/us_reference/``: ``rules.py``, ``agents.py``, ``scoring.py``; no
run imports it) and plays exactly the same games (same legal-move order, same choices, same draws
from the same generators; ``tests/games/urban_sketchers/test_us_fast.py`` checks it move for move).
Where a docstring or comment here names ``rules.X``, ``agents.X`` or ``scoring.X`` beside a
function, it is that reference's function of the same name; the codes (``K_*``, ``P_*``, ...) and
the variant's numbers (:class:`.rules.Rules`) are this package's :mod:`.rules`.

This module is the one compiled copy of the rules: the game's compiled interface (``kernel.py``)
wraps it. Set Up 1-10 (:func:`setup`, the reference's ``rules.new_state`` with the same draws) and
final scoring (:func:`final_components`, :func:`theme_tiles`; the reference's ``scoring``) are
translated too, so a whole game runs in compiled code.

The state is one int64 buffer ``S`` (:func:`state_shapes` lists its fields; :func:`views` names
them for Python code): the reference's numbers and lists, variable-length lists as an array plus a
count (the Backpack and the hand in order of arrival, each sketchbook's cards and bonus tiles; the
deck, discards, bonus bag and its discards with their counts among the scalars), the scalars first
(``S[G_*]``), then the statistics. The variant is a :class:`Layout` of ints (rule numbers, widths,
and the offsets of the fields in ``S`` and of the rule tables in the int64 array ``T``), so a
compiled call passes two arrays and a tuple of ints (a tuple of many arrays costs a reference count
per array per call). Copying a state for a look-ahead is one buffer copy into a preallocated
scratch buffer (:class:`Workspace`). A move is ``(kind, a, b, c)`` as in the reference (``rules.K_*``);
the interface encodes it as one int64 (``kernel.encode``).
"""

from __future__ import annotations

from math import prod
from typing import NamedTuple

import numba as nb
import numpy as np

from .config import UrbanSketchersConfig
from .rules import (
    B_EXTRA_THEME,
    B_LONGER,
    B_MONEY,
    B_STREAK0,
    BEN_BONUS,
    BEN_UNFLIP,
    EFFICIENT,
    FUNDING,
    IMP_FUNDING,
    IMP_PUBLISH,
    IMP_SKETCH,
    IMP_SUPPLY,
    IMP_TRAVEL,
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
    OPPORTUNIST,
    P_FUNDING,
    P_MAIN,
    P_OVER,
    P_RESOLVE,
    P_SETUP,
    P_SKETCH,
    P_SUPPLY,
    P_TRAVEL,
    PUBLISH,
    R_IMPROVEMENT,
    R_MONEY,
    R_UNFLIP,
    SKETCH,
    SUPPLY,
    TRAVEL,
    WANDERER,
    WHITE,
    Rules,
)

jit = nb.njit(cache=True)
inline = nb.njit(cache=True, inline="always")
# Compile cost (issue 47, docs/speed.md): numba compiles every ``@jit`` function into a library of
# its own, and each library links in and optimises again the whole closure of what it calls, once per
# argument types (a constant argument is a literal type of its own). Small helpers and the thin
# layers of the agents' call chain are therefore ``@inline`` (numba inlines them into their callers
# before typing: no library, no literal specialisation); the big pieces (legal_moves, apply_move,
# the greedy values, set-up and scoring) stay ``@jit`` and are compiled once per generator type.

# scalars in FastState.g
(
    G_PHASE,
    G_SEAT,
    G_SETUP_SEAT,
    G_ROUND,
    G_FIRST,
    G_TTURN,
    G_ACTED,
    G_OVER,
    G_END,
    G_ACT_TILE,
    G_TOTAL_PUB,
    G_T_COST,
    G_S_ICONS,
    G_S_CARDS,
    G_SUP_LEFT,
    G_P_BONUS,
    G_P_XTHEME,
    G_P_IMP,
    G_P_UNFLIP,
    G_X_N,
    G_DECK_N,
    G_DISCARD_N,
    G_BAG_N,
    G_BDISC_N,
    G_NDICE,
    G_DECK_SEEN,
) = range(26)
N_G = 26
# G_DECK_SEEN: 1 once the travel deck has been rebuilt from the discard pile (every card in it has then been
# seen by every player); with ``secret`` (per seat, how many cards at the front of the hand are still the ones
# dealt face down at Set Up 10) it is what the compiled interface's determinize needs to know what is hidden
# (kernel.py). Neither is a rule: the reference has no such fields.
G_NAMES = (
    "phase",
    "seat",
    "setup_seat",
    "round",
    "first",
    "tturn",
    "acted",
    "over",
    "end_triggered",
    "act_tile",
    "total_pub",
    "t_cost",
    "s_icons",
    "s_cards",
    "sup_left",
    "p_bonus",
    "p_xtheme",
    "p_imp",
    "p_unflip",
)
"""The reference's scalar attributes held in ``g[0:19]``, in order."""
# per-seat statistics in FastState.st
ST_NAMES = (
    "st_paid_players",
    "st_paid_bank",
    "st_white",
    "st_pub_sizes",
    "st_pub_count",
    "st_turns",
    "st_prestige_money",
    "st_received",
)
ST_PAID_PLAYERS, ST_PAID_BANK, ST_WHITE, ST_PUB_SIZES, ST_PUB_COUNT, ST_TURNS, ST_PRESTIGE_MONEY, ST_RECEIVED = range(8)

AGENT_KINDS = {"random": 0, "greedy": 1}
"""The agents this engine plays, by the code :func:`play` takes per seat."""

TIE = 1e-9  # agents.TIE


class Layout(NamedTuple):
    """A variant compiled for a player count, as ints only (numba passes it without reference
    counting): the rule numbers of :class:`.rules.Rules`, the offsets ``t_*`` of its tables in the
    int64 rule table ``T`` (:func:`compile_fast`), the offsets ``o_*`` of the fields in a state
    buffer ``S`` (``g`` at 0, so ``S[G_*]`` are the scalars) and the padded widths."""

    n: int
    first_player: int
    n_white: int
    hand: int  # cards dealt to each player (Set Up 10)
    start_money: int  # money of each player at the start (setup.money, assumed: Set Up gives none)
    n_tile_values: int  # dice tiles (Set Up 2)
    imp_per_type: int
    themes_per_type: int
    res_per_type: int
    set_points: int  # final scoring 2
    per_money: int  # final scoring 5
    majority_needs_tiles: int
    tie_later_seat: int  # final_scoring.tie: 1 later_seat, 0 shared
    unpublished_track: int  # final_scoring.unpublished_money: 1 with_track_money, 0 sketchbook_money_only
    n_majority: int  # majority values (final scoring 3)
    n_dice: int
    faces: int
    n_supply: int
    spaces: int
    step_money: int
    pick_money: int
    max_cards: int
    max_tiles: int
    tiles_w: int  # btiles row width (max_tiles, at least 1)
    bonus_money: int
    efficient: int
    books: int
    fund_money: int
    fund_per_pub: int
    fund_all: int
    fund_flip: int
    money_per_card: int
    beyond_money: int
    money_tile: int
    prestige_overflow: int
    reward_money: int
    improvement_money: int
    beyond_extra: int  # publish.beyond_six == extra
    publish_min: int
    overflow_per_step: int
    streak_needs_card: int
    slots: int
    display: int
    funding_space: int
    end_total: int
    max_rounds: int
    backpack: int
    n_cards: int
    n_tiles: int
    n_regions: int
    n_pairs: int
    n_prestige: int  # spaces of the Prestige track (its last is n_prestige - 1)
    n_published: int  # entries of the Published track's reward table
    nbr_w: int
    themes_w: int
    max_moves: int  # rows of a legal-move buffer that always suffice
    size: int  # int64s in a state buffer
    # rule tables in T
    t_action_colour: int
    t_nbr: int
    t_nbr_n: int
    t_dist: int
    t_next: int
    t_extra: int
    t_vp: int
    t_pp: int
    t_prew: int
    t_pubrew: int
    t_travel_disc: int
    t_sketch_bonus: int
    t_prestige_extra: int
    t_funding_extra: int
    t_funding_tiles: int
    t_supply_extra: int
    t_tile_kind: int
    t_pairs: int
    t_cost: int
    t_discount: int
    t_bonus: int
    t_region: int
    t_themes: int
    t_themes_n: int
    t_tile_values: int
    t_majority: int
    # state fields in S
    o_dice: int
    o_dcol: int
    o_dused: int
    o_occ: int
    o_cuser: int
    o_cval: int
    o_sup_tile: int
    o_sup_occ: int
    o_theme_at: int
    o_deck: int
    o_discard: int
    o_board: int
    o_bag: int
    o_display: int
    o_bdiscard: int
    o_reserve: int
    o_theme_supply: int
    o_imp_supply: int
    o_money: int
    o_bp: int
    o_bp_n: int
    o_hand: int
    o_hand_n: int
    o_books: int
    o_books_n: int
    o_btiles: int
    o_btiles_n: int
    o_vp: int
    o_prestige: int
    o_pubs: int
    o_th_up: int
    o_th_down: int
    o_opp: int
    o_imp: int
    o_pos: int
    o_s_fee: int
    o_x_allowed: int
    o_st: int
    o_st_actions: int
    o_st_colours: int
    o_st_imp: int
    o_secret: int


class FastWeights(NamedTuple):
    """The greedy weights (``agents.Weights``) and each card's value before its cost."""

    money: float
    resource: float
    hand_card: float
    hand_cap: int
    book_fraction: float
    growth: float
    theme_tile: float
    opportunity: float
    improvement: float
    advanced: float
    bonus_tile: float
    card_cost_share: float
    wander_steps: int
    card_base: np.ndarray


def _padded(rows) -> tuple[list[list[int]], list[int], int]:
    width = max([len(x) for x in rows] + [1])
    return [list(x) + [-1] * (width - len(x)) for x in rows], [len(x) for x in rows], width


def state_shapes(r: Rules) -> list[tuple[str, tuple[int, ...]]]:
    """The fields of a state buffer in order, with their shapes (``g`` first)."""
    n, books, cards, tiles = r.n, r.books, r.n_cards, len(r.tile_kind)
    dice = 4 + r.n_white
    return [
        ("g", (N_G,)),
        ("dice", (dice,)),
        ("dcol", (dice,)),
        ("dused", (dice,)),
        ("occ", (4, n)),
        ("cuser", (4,)),
        ("cval", (4,)),
        ("sup_tile", (r.n_supply,)),
        ("sup_occ", (r.n_supply,)),
        ("theme_at", (4,)),
        ("deck", (cards,)),
        ("discard", (cards,)),
        ("board", (r.spaces,)),
        ("bag", (tiles,)),
        ("display", (r.display,)),
        ("bdiscard", (tiles,)),
        ("reserve", (4,)),
        ("theme_supply", (4,)),
        ("imp_supply", (5,)),
        ("money", (n,)),
        ("bp", (n, r.backpack)),
        ("bp_n", (n,)),
        ("hand", (n, cards)),
        ("hand_n", (n,)),
        ("books", (n, books, r.max_cards)),
        ("books_n", (n, books)),
        ("btiles", (n, books, max(1, r.max_tiles))),
        ("btiles_n", (n, books)),
        ("vp", (n,)),
        ("prestige", (n,)),
        ("pubs", (n,)),
        ("th_up", (n, 4)),
        ("th_down", (n, 4)),
        ("opp", (n, 3)),
        ("imp", (n, 5)),
        ("pos", (n,)),
        ("s_fee", (books,)),
        ("x_allowed", (4,)),
        ("st", (n, 8)),
        ("st_actions", (n, 5)),
        ("st_colours", (n, 5)),
        ("st_imp", (n, 5)),
        ("secret", (n,)),
    ]


def compile_fast(r: Rules) -> tuple[Layout, np.ndarray]:
    """(:class:`Layout`, rule table ``T`` int64[...]) of the reference's compiled variant ``r``."""
    nbr, nbr_n, nbr_w = _padded(r.neighbours)
    themes, themes_n, themes_w = _padded(r.themes)
    tables = [
        ("action_colour", r.action_colour),
        ("nbr", nbr),
        ("nbr_n", nbr_n),
        ("dist", r.dist),
        ("next", r.next_step),
        ("extra", r.extra_card_money),
        ("vp", r.vp),
        ("pp", r.prestige_points),
        ("prew", r.prestige_reward),
        ("pubrew", r.published_reward),
        ("travel_disc", r.travel_discount),
        ("sketch_bonus", r.sketch_bonus),
        ("prestige_extra", r.prestige_extra),
        ("funding_extra", r.funding_extra),
        ("funding_tiles", r.funding_tiles),
        ("supply_extra", r.supply_extra),
        ("tile_kind", r.tile_kind),
        ("pairs", r.pairs),
        ("cost", r.cost),
        ("discount", r.discount),
        ("bonus", r.bonus),
        ("region", r.region),
        ("themes", themes),
        ("themes_n", themes_n),
        ("tile_values", r.tile_values),
        ("majority", r.majority),
    ]
    parts, offsets, at = [], {}, 0
    for name, values in tables:
        flat = np.asarray(values, dtype=np.int64).ravel()
        offsets["t_" + name] = at
        parts.append(flat)
        at += flat.size
    table = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    at = 0
    for name, shape in state_shapes(r):
        if name != "g":
            offsets["o_" + name] = at
        at += prod(shape)
    dice = 4 + r.n_white
    max_moves = (
        dice * (8 * r.books + r.n_supply)
        + len(r.pairs) * (max(3, r.books * r.display) + 1)
        + r.books * r.n_cards * 11
        + 2 * r.spaces
        + r.themes_per_type * 4
        + r.n_cards
        + 64
    )
    lay = Layout(
        n=r.n,
        first_player=r.first_player,
        n_white=r.n_white,
        hand=r.hand,
        start_money=r.start_money,
        n_tile_values=len(r.tile_values),
        imp_per_type=r.imp_per_type,
        themes_per_type=r.themes_per_type,
        res_per_type=r.res_per_type,
        set_points=r.set_points,
        per_money=r.per_money,
        majority_needs_tiles=int(r.majority_needs_tiles),
        tie_later_seat=int(r.tie_later_seat),
        unpublished_track=int(r.unpublished_track),
        n_majority=len(r.majority),
        n_dice=dice,
        faces=r.faces,
        n_supply=r.n_supply,
        spaces=r.spaces,
        step_money=r.step_money,
        pick_money=r.pick_money,
        max_cards=r.max_cards,
        max_tiles=r.max_tiles,
        tiles_w=max(1, r.max_tiles),
        bonus_money=r.bonus_money,
        efficient=r.efficient,
        books=r.books,
        fund_money=r.fund_money,
        fund_per_pub=r.fund_per_pub,
        fund_all=int(r.fund_all),
        fund_flip=r.fund_flip,
        money_per_card=r.money_per_card,
        beyond_money=r.beyond_money,
        money_tile=r.money_tile,
        prestige_overflow=r.prestige_overflow,
        reward_money=r.reward_money,
        improvement_money=r.improvement_money,
        beyond_extra=int(r.beyond_extra),
        publish_min=r.publish_min,
        overflow_per_step=int(r.overflow_per_step),
        streak_needs_card=int(r.streak_needs_card),
        slots=r.slots,
        display=r.display,
        funding_space=r.funding_space,
        end_total=r.end_total,
        max_rounds=r.max_rounds,
        backpack=r.backpack,
        n_cards=r.n_cards,
        n_tiles=len(r.tile_kind),
        n_regions=r.n_regions,
        n_pairs=len(r.pairs),
        n_prestige=len(r.prestige_points),
        n_published=len(r.published_reward),
        nbr_w=nbr_w,
        themes_w=themes_w,
        max_moves=max_moves,
        size=at,
        **offsets,
    )
    return lay, table


def fast_weights(cfg: UrbanSketchersConfig, r: Rules) -> FastWeights:
    """``agents.Weights`` of ``cfg`` for the variant ``r`` (card values computed as the reference does)."""
    g = cfg.agents.greedy
    base = [
        g.hand_card + g.card_bonus_icon * r.bonus[c] + g.card_theme_icon * len(r.themes[c]) for c in range(r.n_cards)
    ]
    return FastWeights(
        money=g.money,
        resource=g.resource,
        hand_card=g.hand_card,
        hand_cap=g.hand_cap,
        book_fraction=g.book_fraction,
        growth=g.growth,
        theme_tile=g.theme_tile,
        opportunity=g.opportunity,
        improvement=g.improvement,
        advanced=g.advanced,
        bonus_tile=g.bonus_tile,
        card_cost_share=g.card_cost_share,
        wander_steps=g.wander_steps,
        card_base=np.asarray(base, np.float64),
    )


_SLICES: dict[int, tuple[Rules, list[tuple[str, int, int, tuple[int, ...]]], int]] = {}


def _slices(r: Rules) -> tuple[list[tuple[str, int, int, tuple[int, ...]]], int]:
    """(name, start, end, shape) of each field of a state buffer, and the buffer's size (cached per variant)."""
    hit = _SLICES.get(id(r))
    if hit is None or hit[0] is not r:
        out, at = [], 0
        for name, shape in state_shapes(r):
            out.append((name, at, at + prod(shape), shape))
            at += prod(shape)
        hit = _SLICES[id(r)] = (r, out, at)
    return hit[1], hit[2]


def views(buf: np.ndarray, r: Rules) -> dict[str, np.ndarray]:
    """The fields of state buffer ``buf`` as numpy views by name (:func:`state_shapes`); for Python code."""
    return {name: buf[a:b].reshape(shape) for name, a, b, shape in _slices(r)[0]}


class Workspace(NamedTuple):
    """Preallocated buffers of the agents: two scratch state buffers (``a`` for the copies of the
    real state at the choice of a die, ``b`` for those of the decisions inside an action), move
    lists and their values."""

    a: np.ndarray
    b: np.ndarray
    cand: np.ndarray  # int64[max_moves, 4]: greedy's candidate die choices
    tmp: np.ndarray  # int64[max_moves, 4]: legal moves behind the candidates
    sub: np.ndarray  # int64[max_moves, 4]: legal moves inside an action
    vals: np.ndarray  # float64[max_moves]
    subvals: np.ndarray
    keys: np.ndarray  # int64[81]: candidate slot per (place target, Opportunist) key
    opts: np.ndarray  # int64[10, 5]: Efficient options


def workspace(lay: Layout) -> Workspace:
    """A :class:`Workspace` for the variant."""
    m = lay.max_moves
    return Workspace(
        a=np.zeros(lay.size, np.int64),
        b=np.zeros(lay.size, np.int64),
        cand=np.zeros((m, 4), np.int64),
        tmp=np.zeros((m, 4), np.int64),
        sub=np.zeros((m, 4), np.int64),
        vals=np.zeros(m),
        subvals=np.zeros(m),
        keys=np.zeros(81, np.int64),
        opts=np.zeros((10, 5), np.int64),
    )


# --------------------------------------------------------------------------------------------------
# shared helpers (rules.py, same names). S: state buffer, L: Layout, T: rule table.


@inline
def copy_state(dst, src):
    """Copy state buffer ``src`` into ``dst``."""
    dst[:] = src


@inline
def _put(out, n, k, a, b, c):
    out[n, 0] = k
    out[n, 1] = a
    out[n, 2] = b
    out[n, 3] = c
    return n + 1


@inline
def _book(L, p, b):
    """Offset of sketchbook b of seat p's cards in S (its count at L.o_books_n + p * L.books + b)."""
    return L.o_books + (p * L.books + b) * L.max_cards


@inline
def _tiles(L, p, b):
    return L.o_btiles + (p * L.books + b) * L.tiles_w


@inline
def place_cost(S, L, p, die, action):
    """(money, payee seat or -1 for the bank) of placing ``die`` on p's space of ``action`` (Choose a
    Die; :func:`.rules.place_cost`): 0 for a coloured die, else the difference of the white die's value
    to the coloured die used on that action, or to the actions' dice tile."""
    if S[L.o_dcol + die] != WHITE:
        return 0, -1
    v = S[L.o_dice + die]
    if S[L.o_cuser + action] >= 0:
        return abs(v - S[L.o_cval + action]), S[L.o_cuser + action]
    return abs(v - S[G_ACT_TILE]), -1


@inline
def _tally(S, T, first, n, table):
    """How many of the n values from S[first] are 0, 1, 2 and 3, each value read through the
    rule table at T[table:] if ``table`` >= 0 (other values are not counted)."""
    c0 = c1 = c2 = c3 = 0
    for i in range(n):
        x = S[first + i] if table < 0 else T[table + S[first + i]]
        if x == 0:
            c0 += 1
        elif x == 1:
            c1 += 1
        elif x == 2:
            c2 += 1
        elif x == 3:
            c3 += 1
    return c0, c1, c2, c3


@jit
def book_discounts(S, L, T, p, b):
    """Discounts of p's sketchbook b per resource type, (pencil, ink, paint, paper) counts: the
    cards' discount icons and the discount bonus tiles in it (Sketch; :func:`.rules.book_discounts`)."""
    a0, a1, a2, a3 = _tally(S, T, _book(L, p, b), S[L.o_books_n + p * L.books + b], L.t_discount)
    b0, b1, b2, b3 = _tally(S, T, _tiles(L, p, b), S[L.o_btiles_n + p * L.books + b], L.t_tile_kind)
    return a0 + b0, a1 + b1, a2 + b2, a3 + b3


@inline
def card_need(L, T, card, d0, d1, d2, d3):
    """Resources (4 counts) still to pay for ``card`` after the discounts ``d0..d3`` (:func:`.rules.card_need`)."""
    o = L.t_cost + card * 4
    c0, c1, c2, c3 = T[o], T[o + 1], T[o + 2], T[o + 3]
    return (c0 - d0 if c0 > d0 else 0, c1 - d1 if c1 > d1 else 0, c2 - d2 if c2 > d2 else 0, c3 - d3 if c3 > d3 else 0)


@jit
def efficient_options(n0, n1, n2, n3, amount, opts):
    """rules.efficient_options into ``opts`` (int64[>=10, 5]: code, reduced need); returns the count."""
    total = n0 + n1 + n2 + n3
    if total == 0 or amount <= 0:
        return 0
    if amount != 2:
        left = amount
        opts[0, 0] = 0
        opts[0, 1], opts[0, 2], opts[0, 3], opts[0, 4] = n0, n1, n2, n3
        for res in range(4):
            take = min(left, opts[0, 1 + res])
            opts[0, 1 + res] -= take
            left -= take
        return 1
    k = 0
    for r1 in range(4):
        if (n0, n1, n2, n3)[r1] == 0:
            continue
        for r2 in range(r1, 4):
            opts[k, 1], opts[k, 2], opts[k, 3], opts[k, 4] = n0, n1, n2, n3
            opts[k, 1 + r1] -= 1
            if opts[k, 1 + r2]:
                opts[k, 1 + r2] -= 1
            elif total >= 2:
                continue
            dup = False
            for j in range(k):
                if (
                    opts[j, 1] == opts[k, 1]
                    and opts[j, 2] == opts[k, 2]
                    and opts[j, 3] == opts[k, 3]
                    and opts[j, 4] == opts[k, 4]
                ):
                    dup = True
                    break
            if not dup:
                opts[k, 0] = r1 * 4 + r2
                k += 1
    return k


@inline
def efficient_need(L, need, code, opts):
    """The reduced need of Efficient option ``code`` (legal) for ``need``."""
    m = efficient_options(need[0], need[1], need[2], need[3], L.efficient, opts)
    for j in range(m):
        if opts[j, 0] == code:
            return opts[j, 1], opts[j, 2], opts[j, 3], opts[j, 4]
    return need


@jit
def longest_streak(S, L, T, p, b):
    """Prestige spaces of publishing p's sketchbook b (Publish step 5): its longest run of consecutive
    cards of one region, +1 per streak tile of a region with a run (:func:`.rules.longest_streak`)."""
    b0 = b1 = b2 = 0
    run_region, run = -1, 0
    bk = _book(L, p, b)
    for i in range(S[L.o_books_n + p * L.books + b]):
        g = T[L.t_region + S[bk + i]]
        if g >= 0 and g == run_region:
            run += 1
        else:
            run_region, run = g, 1
        if g == 0 and run > b0:
            b0 = run
        elif g == 1 and run > b1:
            b1 = run
        elif g == 2 and run > b2:
            b2 = run
    tl = _tiles(L, p, b)
    for i in range(S[L.o_btiles_n + p * L.books + b]):
        k = T[L.t_tile_kind + S[tl + i]]
        if B_STREAK0 <= k < B_STREAK0 + L.n_regions:
            g = k - B_STREAK0
            free = L.streak_needs_card == 0
            if g == 0 and (b0 > 0 or free):
                b0 += 1
            elif g == 1 and (b1 > 0 or free):
                b1 += 1
            elif g == 2 and (b2 > 0 or free):
                b2 += 1
    return max(b0, b1, b2)


@jit
def book_money(S, L, T, p, b):
    """(victory points, money) of publishing p's sketchbook b (Publish steps 1-2, Bonus Tiles: the
    longer and money tiles; :func:`.rules.book_money`)."""
    longer = money_tiles = 0
    tl = _tiles(L, p, b)
    for i in range(S[L.o_btiles_n + p * L.books + b]):
        k = T[L.t_tile_kind + S[tl + i]]
        if k == B_LONGER:
            longer += 1
        elif k == B_MONEY:
            money_tiles += 1
    size = S[L.o_books_n + p * L.books + b] + longer
    top = L.max_cards
    vp = T[L.t_vp + (size if size <= top else top)]
    paid = size if (size <= top or L.beyond_extra) else top
    money = paid * L.money_per_card + money_tiles * L.money_tile
    if size > top:
        money += (size - top) * L.beyond_money
    return vp, money


@inline
def _remove_first(S, first, count_at, value):
    """Remove the first ``value`` from the list at S[first:] of S[count_at] items (list.remove)."""
    m = S[count_at]
    for i in range(m):
        if S[first + i] == value:
            for j in range(i, m - 1):
                S[first + j] = S[first + j + 1]
            S[count_at] = m - 1
            return


@inline
def _hand_remove(S, L, p, card):
    """Remove ``card`` from p's hand; a card among the ``secret`` ones dealt face down leaves them."""
    first = L.o_hand + p * L.n_cards
    for i in range(S[L.o_secret + p]):
        if S[first + i] == card:
            S[L.o_secret + p] -= 1
            break
    _remove_first(S, first, L.o_hand_n + p, card)


@inline
def gain_resource(S, L, p, res):
    """One resource of type ``res`` (0-3) from the reserve into p's Backpack, the oldest going back to
    the reserve first when the Backpack is full (Personal Boards F; :func:`.rules.gain_resource`)."""
    bp = L.o_bp + p * L.backpack
    if S[L.o_bp_n + p] >= L.backpack:
        old = S[bp]
        _remove_first(S, bp, L.o_bp_n + p, old)
        S[L.o_reserve + old] += 1
    S[bp + S[L.o_bp_n + p]] = res
    S[L.o_bp_n + p] += 1
    S[L.o_reserve + res] -= 1


@inline
def _pay_resources(S, L, p, need):
    for res in range(4):
        for _ in range(need[res]):
            _remove_first(S, L.o_bp + p * L.backpack, L.o_bp_n + p, res)
            S[L.o_reserve + res] += 1


@inline
def _reward(S, L, p, code):
    if code == R_UNFLIP:
        S[G_P_UNFLIP] += 1
    elif code == R_IMPROVEMENT:
        S[G_P_IMP] += 1
    elif code == R_MONEY:
        S[L.o_money + p] += L.reward_money


@inline
def advance_prestige(S, L, T, p, steps):
    """Move p's Prestige disc ``steps`` spaces, each space's reward becoming pending; past the last
    space, ``prestige_overflow`` money a step, or once an advance, instead (Publish step 5;
    :func:`.rules.advance_prestige`)."""
    last = L.n_prestige - 1
    paid = False
    for _ in range(steps):
        if S[L.o_prestige + p] < last:
            S[L.o_prestige + p] += 1
            code = T[L.t_prew + S[L.o_prestige + p]]
            if code >= 0:
                _reward(S, L, p, code)
        elif L.overflow_per_step or not paid:
            S[L.o_money + p] += L.prestige_overflow
            S[L.o_st + p * 8 + ST_PRESTIGE_MONEY] += L.prestige_overflow
            paid = True


@jit
def _refill(S, slots, n_slots, pile, pile_key, discard, discard_key, rng):
    """rules._refill: fill the empty slots S[slots:slots+n_slots] from the pile at S[pile] (count
    S[pile_key]), reshuffling the discards at S[discard] (count S[discard_key]) into it when empty."""
    for i in range(n_slots):
        if S[slots + i] < 0:
            if S[pile_key] == 0 and S[discard_key] > 0:
                m = S[discard_key]
                perm = np.arange(m)
                rng.shuffle(perm)
                for j in range(m):
                    S[pile + j] = S[discard + perm[j]]
                S[pile_key] = m
                S[discard_key] = 0
            if S[pile_key] > 0:
                S[pile_key] -= 1
                S[slots + i] = S[pile + S[pile_key]]


@jit
def publish(S, L, T, p, b):
    """Publish p's sketchbook b (Publish steps 1-7; :func:`.rules.publish`): points, money, theme tiles,
    both tracks (their choices pending), cards and tiles discarded, the end of the game triggered."""
    vp, money = book_money(S, L, T, p, b)
    S[L.o_vp + p] += vp
    S[L.o_money + p] += money
    bk, tl = _book(L, p, b), _tiles(L, p, b)
    nc = S[L.o_books_n + p * L.books + b]
    nt = S[L.o_btiles_n + p * L.books + b]
    mask = 0
    for i in range(nc):
        c = S[bk + i]
        for j in range(T[L.t_themes_n + c]):
            t = T[L.t_themes + c * L.themes_w + j]
            if S[L.o_theme_supply + t] > 0:
                S[L.o_theme_supply + t] -= 1
                S[L.o_th_up + p * 4 + t] += 1
                mask |= 1 << t
    extra = 0
    for i in range(nt):
        if T[L.t_tile_kind + S[tl + i]] == B_EXTRA_THEME:
            extra += 1
    if extra and mask:
        S[G_P_XTHEME] += extra
        k = 0
        for t in range(4):
            if mask & (1 << t):
                S[L.o_x_allowed + k] = t
                k += 1
        S[G_X_N] = k
    S[L.o_pubs + p] += 1
    S[G_TOTAL_PUB] += 1
    pubs = S[L.o_pubs + p]
    if pubs < L.n_published and T[L.t_pubrew + pubs] >= 0:
        _reward(S, L, p, T[L.t_pubrew + pubs])
    steps = longest_streak(S, L, T, p, b) + T[L.t_prestige_extra + S[L.o_imp + p * 5 + IMP_PUBLISH]]
    advance_prestige(S, L, T, p, steps)
    S[L.o_st + p * 8 + ST_PUB_SIZES] += nc
    S[L.o_st + p * 8 + ST_PUB_COUNT] += 1
    for i in range(nc):
        S[L.o_discard + S[G_DISCARD_N]] = S[bk + i]
        S[G_DISCARD_N] += 1
    for i in range(nt):
        S[L.o_bdiscard + S[G_BDISC_N]] = S[tl + i]
        S[G_BDISC_N] += 1
    S[L.o_books_n + p * L.books + b] = 0
    S[L.o_btiles_n + p * L.books + b] = 0
    if S[G_TOTAL_PUB] >= L.end_total:
        S[G_END] = 1


# --------------------------------------------------------------------------------------------------
# rounds and turns


@inline
def _roll(S, L, rng):
    k = L.n_dice
    vals = rng.integers(0, L.faces, size=k)
    for i in range(k):
        S[L.o_dice + i] = vals[i] + 1
        S[L.o_dcol + i] = i if i < 4 else WHITE
        S[L.o_dused + i] = 0
    S[G_NDICE] = k
    for i in range(4 * L.n):
        S[L.o_occ + i] = 0
    for i in range(4):
        S[L.o_cuser + i] = -1
        S[L.o_cval + i] = 0
    for i in range(L.n_supply):
        S[L.o_sup_occ + i] = 0


@jit
def _start_round(S, L, rng):
    _roll(S, L, rng)
    S[G_TTURN] = 0
    S[G_SEAT] = S[G_FIRST]
    S[G_PHASE] = P_MAIN
    S[G_ACTED] = 0


@jit
def _end_turn(S, L, rng):
    S[L.o_st + S[G_SEAT] * 8 + ST_TURNS] += 1
    S[G_TTURN] += 1
    if S[G_TTURN] < 2 * L.n:
        S[G_SEAT] = (S[G_FIRST] + S[G_TTURN]) % L.n
        S[G_PHASE] = P_MAIN
        S[G_ACTED] = 0
        return
    if S[G_END] or S[G_ROUND] + 1 >= L.max_rounds:
        S[G_OVER] = 1
        S[G_PHASE] = P_OVER
        return
    S[G_ROUND] += 1
    S[G_FIRST] = (S[G_FIRST] + 1) % L.n
    _start_round(S, L, rng)


@inline
def _x_available(S, L):
    for i in range(S[G_X_N]):
        if S[L.o_theme_supply + S[L.o_x_allowed + i]]:
            return True
    return False


@inline
def _opp_down(S, L, p):
    o = L.o_opp + p * 3
    return S[o] == 0 or S[o + 1] == 0 or S[o + 2] == 0


@jit
def _continue(S, L, rng):
    p = S[G_SEAT]
    if S[G_P_XTHEME]:
        if _x_available(S, L):
            S[G_PHASE] = P_RESOLVE
            return
        S[G_P_XTHEME] = 0
    if S[G_P_IMP]:
        S[G_PHASE] = P_RESOLVE
        return
    if S[G_P_UNFLIP]:
        if _opp_down(S, L, p):
            S[G_PHASE] = P_RESOLVE
            return
        S[G_P_UNFLIP] = 0
    if S[G_P_BONUS]:
        S[G_PHASE] = P_RESOLVE
        return
    if S[G_ACTED]:
        _end_turn(S, L, rng)
    else:
        S[G_PHASE] = P_MAIN


@inline
def choice_pending(S, L):
    """True when a choice (extra theme, improvement, unflip, bonus tile) waits (:func:`.rules.choice_pending`)."""
    if S[G_P_XTHEME] and _x_available(S, L):
        return True
    if S[G_P_IMP]:
        return True
    if S[G_P_UNFLIP] and _opp_down(S, L, S[G_SEAT]):
        return True
    return S[G_P_BONUS] != 0


@jit
def continue_draws(S, L, rng):
    """Draw from ``rng`` what ending the current decision would draw (the next round's dice), for
    look-aheads without a copy (:func:`.rules.continue_draws`)."""
    if choice_pending(S, L) or not S[G_ACTED]:
        return
    if S[G_TTURN] + 1 >= 2 * L.n and not (S[G_END] or S[G_ROUND] + 1 >= L.max_rounds):
        rng.integers(0, L.faces, size=L.n_dice)


@inline
def _empty_slots(S, first, n):
    """How many of the n slots from S[first] are empty (-1)."""
    empty = 0
    for i in range(n):
        if S[first + i] < 0:
            empty += 1
    return empty


@inline
def refill_display_draws(S, L, rng):
    """Draw from ``rng`` what refilling the bonus-tile display now would draw (one shuffle of the
    discarded tiles when the bag runs out; :func:`.rules.refill_display_draws`)."""
    empty = 0
    for i in range(L.display):
        if S[L.o_display + i] < 0:
            empty += 1
    if empty > S[G_BAG_N] and S[G_BDISC_N] > 0:
        perm = np.arange(S[G_BDISC_N])
        rng.shuffle(perm)


# --------------------------------------------------------------------------------------------------
# legal decisions (rules.legal_moves, same order)


@inline
def _backpack_counts(S, L, p):
    """Resources of each type in p's Backpack."""
    return _tally(S, S, L.o_bp + p * L.backpack, S[L.o_bp_n + p], -1)


@jit
def _place_moves(S, L, T, out, n):
    p = S[G_SEAT]
    money = S[L.o_money + p]
    opp_ready = S[L.o_opp + p * 3 + OPPORTUNIST]
    for d in range(S[G_NDICE]):
        if S[L.o_dused + d]:
            continue
        col, val = S[L.o_dcol + d], S[L.o_dice + d]
        seen = False
        for e in range(d):
            if not S[L.o_dused + e] and S[L.o_dcol + e] == col and S[L.o_dice + e] == val:
                seen = True
                break
        if seen:
            continue
        for a in range(4):
            if S[L.o_occ + a * L.n + p] or (col != WHITE and col != T[L.t_action_colour + a]):
                continue
            cost, _ = place_cost(S, L, p, d, a)
            for arg in range(L.books if a == PUBLISH else 1):
                if a == PUBLISH and S[L.o_books_n + p * L.books + arg] < L.publish_min:
                    continue
                if cost <= money:
                    n = _put(out, n, K_PLACE, d, a * 8 + arg, 0)
                if cost > 0 and opp_ready:
                    n = _put(out, n, K_PLACE, d, a * 8 + arg, 1)
        for k in range(L.n_supply):
            if not S[L.o_sup_occ + k]:
                n = _put(out, n, K_PLACE, d, SUPPLY * 8 + k, 0)
    return n


@jit
def _theme_pair_moves(S, L, T, out, n):
    p = S[G_SEAT]
    for i in range(L.n_pairs):
        x, y, ben = T[L.t_pairs + 3 * i], T[L.t_pairs + 3 * i + 1], T[L.t_pairs + 3 * i + 2]
        if not (S[L.o_th_up + p * 4 + S[L.o_theme_at + x]] and S[L.o_th_up + p * 4 + S[L.o_theme_at + y]]):
            continue
        if ben == BEN_UNFLIP:
            for o in range(3):
                if not S[L.o_opp + p * 3 + o]:
                    n = _put(out, n, K_THEME_PAIR, i, o, 0)
        elif ben == BEN_BONUS:
            n = _put(out, n, K_THEME_PAIR, i, -1, 0)
            for b in range(L.books):
                if S[L.o_btiles_n + p * L.books + b] < L.max_tiles:
                    for slot in range(L.display):
                        if S[L.o_display + slot] >= 0:
                            n = _put(out, n, K_THEME_PAIR, i, slot, b)
        else:
            n = _put(out, n, K_THEME_PAIR, i, 0, 0)
    return n


@jit
def legal_moves(S, L, T, out, opts):
    """Every legal decision of the seat to move into ``out`` (int64[L.max_moves, 4]), in the
    reference's order; returns their number (0 once the game is over). ``opts``: int64[10, 5] scratch."""
    p, ph = S[G_SEAT], S[G_PHASE]
    n = 0
    if ph == P_MAIN:
        n = _place_moves(S, L, T, out, 0)
        if n == 0:
            n = _put(out, 0, K_PASS, 0, 0, 0)
        return _theme_pair_moves(S, L, T, out, n)
    if ph == P_TRAVEL:
        budget = S[L.o_money + p] + T[L.t_travel_disc + S[L.o_imp + p * 5 + IMP_TRAVEL]] - S[G_T_COST]
        pos = S[L.o_pos + p]
        n = _put(out, 0, K_END, 0, 0, 0)
        if S[L.o_board + pos] >= 0 and budget >= L.pick_money:
            n = _put(out, n, K_PICK, 0, 0, 0)
        if budget >= L.step_money:
            for j in range(T[L.t_nbr_n + pos]):
                n = _put(out, n, K_STEP, T[L.t_nbr + pos * L.nbr_w + j], 0, 0)
        if S[L.o_opp + p * 3 + WANDERER]:
            for v in range(L.spaces):
                if v != pos:
                    n = _put(out, n, K_WANDER, v, 0, 0)
        return _theme_pair_moves(S, L, T, out, n)
    if ph == P_SKETCH:
        n = _put(out, 0, K_END, 0, 0, 0)
        h0, h1, h2, h3 = _backpack_counts(S, L, p)
        eff_ready = S[L.o_opp + p * 3 + EFFICIENT]
        hand = L.o_hand + p * L.n_cards
        for b in range(L.books):
            if S[L.o_books_n + p * L.books + b] >= L.max_cards:
                continue
            if S[L.o_money + p] < T[L.t_extra + S[L.o_s_fee + b]]:
                continue
            d0, d1, d2, d3 = book_discounts(S, L, T, p, b)
            for i in range(S[L.o_hand_n + p]):
                c = S[hand + i]
                e0, e1, e2, e3 = card_need(L, T, c, d0, d1, d2, d3)
                if e0 <= h0 and e1 <= h1 and e2 <= h2 and e3 <= h3:
                    n = _put(out, n, K_SKETCH, c, b, -1)
                if eff_ready:
                    m = efficient_options(e0, e1, e2, e3, L.efficient, opts)
                    for j in range(m):
                        if opts[j, 1] <= h0 and opts[j, 2] <= h1 and opts[j, 3] <= h2 and opts[j, 4] <= h3:
                            n = _put(out, n, K_SKETCH, c, b, opts[j, 0])
        return _theme_pair_moves(S, L, T, out, n)
    if ph == P_FUNDING:
        k = S[L.o_th_up + p * 4 + S[L.o_theme_at + L.funding_space]]
        for i in range(k + 1):
            n = _put(out, n, K_FUND, i, 0, 0)
        return _theme_pair_moves(S, L, T, out, n)
    if ph == P_SUPPLY:
        n = _put(out, 0, K_END, 0, 0, 0)
        for res in range(4):
            if S[L.o_reserve + res] > 0:
                n = _put(out, n, K_RESOURCE, res, 0, 0)
        return _theme_pair_moves(S, L, T, out, n)
    if ph == P_RESOLVE:
        if S[G_P_XTHEME]:
            for i in range(S[G_X_N]):
                t = S[L.o_x_allowed + i]
                if S[L.o_theme_supply + t] > 0:
                    n = _put(out, n, K_EXTRA_THEME, t, 0, 0)
            return n
        if S[G_P_IMP]:
            n = _put(out, 0, K_IMPROVE_MONEY, 0, 0, 0)
            imp = L.o_imp + p * 5
            used = 0
            for t in range(5):
                if S[imp + t]:
                    used += 1
            room = used < L.slots
            for t in range(5):
                if S[imp + t] == 1:
                    n = _put(out, n, K_IMPROVE, t, 1, 0)
                elif S[imp + t] == 0 and room and S[L.o_imp_supply + t] > 0:
                    n = _put(out, n, K_IMPROVE, t, 0, 0)
                    if S[G_P_IMP] >= 2:
                        n = _put(out, n, K_IMPROVE, t, 2, 0)
            return n
        if S[G_P_UNFLIP]:
            for o in range(3):
                if not S[L.o_opp + p * 3 + o]:
                    n = _put(out, n, K_UNFLIP, o, 0, 0)
            return n
        if S[G_P_BONUS]:
            n = _put(out, 0, K_BONUS_MONEY, 0, 0, 0)
            for b in range(L.books):
                if S[L.o_btiles_n + p * L.books + b] < L.max_tiles:
                    for i in range(L.display):
                        if S[L.o_display + i] >= 0:
                            n = _put(out, n, K_BONUS, i, b, 0)
            return n
        return 0
    if ph == P_SETUP:
        n = _put(out, 0, K_SETUP_DONE, 0, 0, 0)
        for i in range(S[L.o_hand_n + p]):
            n = _put(out, n, K_SETUP_DISCARD, S[L.o_hand + p * L.n_cards + i], 0, 0)
        return n
    return 0


# --------------------------------------------------------------------------------------------------
# transitions (rules.apply_move)


@inline
def _start_action(S, L, T, p, action, arg, value, rng):
    S[G_ACTED] = 1
    S[L.o_st_actions + p * 5 + action] += 1
    if action == TRAVEL:
        S[G_PHASE] = P_TRAVEL
        S[G_T_COST] = 0
    elif action == SKETCH:
        S[G_PHASE] = P_SKETCH
        for b in range(L.books):
            S[L.o_s_fee + b] = 0
        S[G_S_ICONS] = 0
        S[G_S_CARDS] = 0
    elif action == FUNDING:
        S[G_PHASE] = P_FUNDING
    elif action == PUBLISH:
        publish(S, L, T, p, arg)
        _continue(S, L, rng)
    else:
        S[G_SUP_LEFT] = abs(value - S[L.o_sup_tile + arg]) + T[L.t_supply_extra + S[L.o_imp + p * 5 + IMP_SUPPLY]]
        if S[G_SUP_LEFT]:
            S[G_PHASE] = P_SUPPLY
        else:
            _continue(S, L, rng)


@inline
def _refill_display(S, L, rng):
    _refill(S, L.o_display, L.display, L.o_bag, np.int64(G_BAG_N), L.o_bdiscard, np.int64(G_BDISC_N), rng)


@inline
def _bonus_taken(S, L, rng):
    S[G_P_BONUS] -= 1
    if not S[G_P_BONUS]:
        _refill_display(S, L, rng)
    _continue(S, L, rng)


@jit
def apply_move(S, L, T, kind, a, b, c, rng, opts):
    """Play decision ``(kind, a, b, c)`` (legal) for the seat to move, in place; chance from ``rng``."""
    p = S[G_SEAT]
    if kind == K_PLACE:
        action, arg = b // 8, b % 8
        S[L.o_dused + a] = 1
        col = S[L.o_dcol + a]
        S[L.o_st_colours + p * 5 + col] += 1
        if action == SUPPLY:
            S[L.o_sup_occ + arg] = 1
        else:
            S[L.o_occ + action * L.n + p] = 1
            cost, payee = place_cost(S, L, p, a, action)
            if col == WHITE:
                S[L.o_st + p * 8 + ST_WHITE] += 1
                if c:
                    S[L.o_opp + p * 3 + OPPORTUNIST] = 0
                    if payee >= 0:
                        S[L.o_money + payee] += cost
                else:
                    S[L.o_money + p] -= cost
                    if payee >= 0:
                        S[L.o_money + payee] += cost
                        S[L.o_st + p * 8 + ST_PAID_PLAYERS] += cost
                        S[L.o_st + payee * 8 + ST_RECEIVED] += cost
                    else:
                        S[L.o_st + p * 8 + ST_PAID_BANK] += cost
            else:
                S[L.o_cuser + action] = p
                S[L.o_cval + action] = S[L.o_dice + a]
        _start_action(S, L, T, p, action, arg, S[L.o_dice + a], rng)
    elif kind == K_STEP:
        S[G_T_COST] += L.step_money
        S[L.o_pos + p] = a
    elif kind == K_PICK:
        S[G_T_COST] += L.pick_money
        at = L.o_board + S[L.o_pos + p]
        S[L.o_hand + p * L.n_cards + S[L.o_hand_n + p]] = S[at]
        S[L.o_hand_n + p] += 1
        S[at] = -1
    elif kind == K_WANDER:
        S[L.o_opp + p * 3 + WANDERER] = 0
        S[L.o_pos + p] = a
    elif kind == K_END:
        if S[G_PHASE] == P_TRAVEL:
            pay = S[G_T_COST] - T[L.t_travel_disc + S[L.o_imp + p * 5 + IMP_TRAVEL]]
            if pay > 0:
                S[L.o_money + p] -= pay
                S[L.o_st + p * 8 + ST_PAID_BANK] += pay
            if S[G_DISCARD_N] > 0 and _empty_slots(S, L.o_board, L.spaces) > S[G_DECK_N]:
                S[G_DECK_SEEN] = 1  # the refill rebuilds the deck from the (seen) discards
            _refill(S, L.o_board, L.spaces, L.o_deck, np.int64(G_DECK_N), L.o_discard, np.int64(G_DISCARD_N), rng)
        elif S[G_PHASE] == P_SKETCH:
            if S[G_S_CARDS]:
                lvl = S[L.o_imp + p * 5 + IMP_SKETCH]
                base = max(S[G_S_ICONS], T[L.t_sketch_bonus + 1]) if lvl else S[G_S_ICONS]
                if lvl == 2:
                    base += T[L.t_sketch_bonus + 2]
                S[G_P_BONUS] += base
        else:
            S[G_SUP_LEFT] = 0
        _continue(S, L, rng)
    elif kind == K_SKETCH:
        d0, d1, d2, d3 = book_discounts(S, L, T, p, b)
        need = card_need(L, T, a, d0, d1, d2, d3)
        if c >= 0:
            S[L.o_opp + p * 3 + EFFICIENT] = 0
            need = efficient_need(L, need, c, opts)
        _pay_resources(S, L, p, need)
        fee = T[L.t_extra + S[L.o_s_fee + b]]
        S[L.o_money + p] -= fee
        S[L.o_st + p * 8 + ST_PAID_BANK] += fee
        S[L.o_s_fee + b] += 1
        _hand_remove(S, L, p, a)
        nb_at = L.o_books_n + p * L.books + b
        S[_book(L, p, b) + S[nb_at]] = a
        S[nb_at] += 1
        S[G_S_ICONS] += T[L.t_bonus + a]
        S[G_S_CARDS] += 1
    elif kind == K_FUND:
        theme = S[L.o_theme_at + L.funding_space]
        pubs = S[G_TOTAL_PUB] if L.fund_all else S[L.o_pubs + p]
        lvl = S[L.o_imp + p * 5 + IMP_FUNDING]
        S[L.o_money + p] += L.fund_money + L.fund_per_pub * pubs + L.fund_flip * a + T[L.t_funding_extra + lvl]
        S[L.o_th_up + p * 4 + theme] -= a
        S[L.o_th_down + p * 4 + theme] += a
        S[G_P_BONUS] += T[L.t_funding_tiles + lvl]
        _continue(S, L, rng)
    elif kind == K_RESOURCE:
        gain_resource(S, L, p, a)
        S[G_SUP_LEFT] -= 1
        if not S[G_SUP_LEFT]:
            _continue(S, L, rng)
    elif kind == K_BONUS:
        tile = S[L.o_display + a]
        S[L.o_display + a] = -1
        nt_at = L.o_btiles_n + p * L.books + b
        S[_tiles(L, p, b) + S[nt_at]] = tile
        S[nt_at] += 1
        _bonus_taken(S, L, rng)
    elif kind == K_BONUS_MONEY:
        S[L.o_money + p] += L.bonus_money
        _bonus_taken(S, L, rng)
    elif kind == K_EXTRA_THEME:
        S[L.o_theme_supply + a] -= 1
        S[L.o_th_up + p * 4 + a] += 1
        S[G_P_XTHEME] -= 1
        _continue(S, L, rng)
    elif kind == K_IMPROVE:
        imp = L.o_imp + p * 5 + a
        if b == 1:
            S[imp] = 2
            S[G_P_IMP] -= 1
        else:
            S[imp] = 1 if b == 0 else 2
            S[L.o_imp_supply + a] -= 1
            S[G_P_IMP] -= 1 if b == 0 else 2
        S[L.o_st_imp + p * 5 + a] = 1
        _continue(S, L, rng)
    elif kind == K_IMPROVE_MONEY:
        S[L.o_money + p] += L.improvement_money
        S[G_P_IMP] -= 1
        _continue(S, L, rng)
    elif kind == K_UNFLIP:
        S[L.o_opp + p * 3 + a] = 1
        S[G_P_UNFLIP] -= 1
        _continue(S, L, rng)
    elif kind == K_THEME_PAIR:
        ben = T[L.t_pairs + 3 * a + 2]
        for j in range(2):
            t = S[L.o_theme_at + T[L.t_pairs + 3 * a + j]]
            S[L.o_th_up + p * 4 + t] -= 1
            S[L.o_th_down + p * 4 + t] += 1
        if ben == BEN_UNFLIP:
            S[L.o_opp + p * 3 + b] = 1
        elif ben == BEN_BONUS:
            if b < 0:
                S[L.o_money + p] += L.bonus_money
            else:
                nt_at = L.o_btiles_n + p * L.books + c
                S[_tiles(L, p, c) + S[nt_at]] = S[L.o_display + b]
                S[nt_at] += 1
                S[L.o_display + b] = -1
            _refill_display(S, L, rng)
        else:
            advance_prestige(S, L, T, p, 1)
        if S[G_PHASE] == P_MAIN:
            _continue(S, L, rng)
    elif kind == K_PASS:
        _end_turn(S, L, rng)
    elif kind == K_SETUP_DISCARD:
        _hand_remove(S, L, p, a)
        S[L.o_discard + S[G_DISCARD_N]] = a
        S[G_DISCARD_N] += 1
        bp = L.o_bp + p * L.backpack
        for res in range(4):
            for _ in range(T[L.t_cost + a * 4 + res]):
                if S[L.o_bp_n + p] < L.backpack and S[L.o_reserve + res] > 0:
                    S[bp + S[L.o_bp_n + p]] = res
                    S[L.o_bp_n + p] += 1
                    S[L.o_reserve + res] -= 1
    elif kind == K_SETUP_DONE:
        S[G_SETUP_SEAT] += 1
        if S[G_SETUP_SEAT] < L.n:
            S[G_SEAT] = S[G_SETUP_SEAT]
        else:
            S[G_FIRST] = L.first_player
            _start_round(S, L, rng)


# --------------------------------------------------------------------------------------------------
# Set Up 1-10 (rules.new_state) and final scoring (scoring.final_components, scoring.tiebreak)


@inline
def _shuffled_range(m, rng):
    """0..m-1 in the order of ``rng.permutation(m)`` (the reference's ``rules._shuffled``)."""
    perm = np.arange(m)
    rng.shuffle(perm)
    return perm


@jit
def setup(S, L, T, rng):
    """Set Up 1-10 into the state buffer ``S`` (int64[L.size], overwritten), with the reference's
    draws in the reference's order (:func:`.rules.new_state`): the dice tiles (2), the large theme
    tiles (3), the bonus bag and its display (4), the travel deck, its board and the hands (10).
    The game then waits for the Set Up 11 discards, seat by seat (phase P_SETUP). Every card in a
    hand is ``secret`` (dealt face down)."""
    S[:] = 0
    S[G_PHASE] = P_SETUP
    tiles = _shuffled_range(L.n_tile_values, rng)  # Set Up 2
    S[G_ACT_TILE] = T[L.t_tile_values + tiles[0]]
    for i in range(L.n_supply):
        S[L.o_sup_tile + i] = T[L.t_tile_values + tiles[1 + i]]
    theme = _shuffled_range(4, rng)  # Set Up 3
    for i in range(4):
        S[L.o_theme_at + i] = theme[i]
    bag = _shuffled_range(L.n_tiles, rng)  # Set Up 4
    for i in range(L.n_tiles):
        S[L.o_bag + i] = bag[i]
    S[G_BAG_N] = L.n_tiles
    for i in range(L.display):
        if S[G_BAG_N] > 0:
            S[G_BAG_N] -= 1
            S[L.o_display + i] = S[L.o_bag + S[G_BAG_N]]
        else:
            S[L.o_display + i] = -1
    for t in range(5):  # Set Up 5
        S[L.o_imp_supply + t] = L.imp_per_type
    for t in range(4):  # Set Up 6, Components
        S[L.o_theme_supply + t] = L.themes_per_type
        S[L.o_reserve + t] = L.res_per_type
    for p in range(L.n):
        for o in range(3):  # Set Up 9
            S[L.o_opp + p * 3 + o] = 1
        S[L.o_pos + p] = (p * L.spaces) // L.n  # setup.start_spaces: spread
        S[L.o_money + p] = L.start_money  # setup.money
    deck = _shuffled_range(L.n_cards, rng)  # Set Up 10
    for i in range(L.n_cards):
        S[L.o_deck + i] = deck[i]
    S[G_DECK_N] = L.n_cards
    for i in range(L.spaces):
        S[G_DECK_N] -= 1
        S[L.o_board + i] = S[L.o_deck + S[G_DECK_N]]
    for p in range(L.n):
        for i in range(L.hand):
            S[G_DECK_N] -= 1
            S[L.o_hand + p * L.n_cards + i] = S[L.o_deck + S[G_DECK_N]]
        S[L.o_hand_n + p] = L.hand
        S[L.o_secret + p] = L.hand
    for i in range(4):
        S[L.o_cuser + i] = -1


@jit
def final_components(S, L, T, out):
    """Points per seat by component into ``out`` (int64[5, n]: publishing, sets, majorities, prestige,
    leftovers; :func:`.scoring.final_components`, End of the Game 1-5), as if the game ended now:
    unpublished sketchbooks' money (1; under ``unpublished_money: with_track_money`` also the money
    rewards of the Published track spaces they would reach, in sketchbook order) counts with the money
    and resources left (5); majorities (3)
    share tied places' values, rounded down."""
    n = L.n
    for p in range(n):
        out[0, p] = S[L.o_vp + p]
        least = -1
        for t in range(4):
            c = S[L.o_th_up + p * 4 + t] + S[L.o_th_down + p * 4 + t]
            if least < 0 or c < least:
                least = c
        out[1, p] = least * L.set_points
        out[2, p] = 0
        out[3, p] = T[L.t_pp + S[L.o_prestige + p]]
        money = S[L.o_money + p]
        pubs = S[L.o_pubs + p]
        for b in range(L.books):
            if S[L.o_books_n + p * L.books + b] > 0:
                money += book_money(S, L, T, p, b)[1]
                pubs += 1
                if L.unpublished_track and pubs < L.n_published and T[L.t_pubrew + pubs] == R_MONEY:
                    money += L.reward_money
        out[4, p] = (money + S[L.o_bp_n + p]) // L.per_money
    for t in range(4):
        for p in range(n):
            c = S[L.o_th_up + p * 4 + t] + S[L.o_th_down + p * 4 + t]
            if L.majority_needs_tiles and c <= 0:
                continue
            place = tied = 0
            for q in range(n):
                d = S[L.o_th_up + q * 4 + t] + S[L.o_th_down + q * 4 + t]
                if L.majority_needs_tiles and d <= 0:
                    continue
                if d > c:
                    place += 1
                elif d == c:
                    tied += 1
            total = 0
            for i in range(place, min(place + tied, L.n_majority)):
                total += T[L.t_majority + i]
            out[2, p] += total // tied


@inline
def theme_tiles(S, L, p):
    """The tie-breaker (Determine Victory): p's theme tiles, face up and flipped (:func:`.scoring.tiebreak`)."""
    total = 0
    for t in range(4):
        total += S[L.o_th_up + p * 4 + t] + S[L.o_th_down + p * 4 + t]
    return total


# --------------------------------------------------------------------------------------------------
# the greedy agent (agents.py, same names, same arithmetic in the same order)


@jit
def book_value(S, L, T, W, p, b):
    """The greedy value of p's sketchbook b in victory points (:func:`.agents.book_value`)."""
    nc = S[L.o_books_n + p * L.books + b]
    nt = S[L.o_btiles_n + p * L.books + b]
    if nc == 0:
        return W.bonus_tile * nt
    vp, money = book_money(S, L, T, p, b)
    icons = 0
    bk = _book(L, p, b)
    for i in range(nc):
        icons += T[L.t_themes_n + S[bk + i]]
    streak = longest_streak(S, L, T, p, b)
    young = max(0.0, 1.0 - S[G_TOTAL_PUB] / L.end_total)
    return (
        W.book_fraction * (vp + W.money * money + W.theme_tile * icons + streak)
        + W.bonus_tile * nt
        + W.growth * young * (L.max_cards - nc)
    )


@jit
def position_value(S, L, T, W, p):
    """The greedy value of seat p's holdings in victory points (:func:`.agents.position_value`)."""
    v = float(S[L.o_vp + p] + T[L.t_pp + S[L.o_prestige + p]])
    v += W.money * S[L.o_money + p] + W.resource * S[L.o_bp_n + p]
    themes = 0
    for t in range(4):
        themes += S[L.o_th_up + p * 4 + t] + S[L.o_th_down + p * 4 + t]
    v += W.theme_tile * themes
    v += W.opportunity * (S[L.o_opp + p * 3] + S[L.o_opp + p * 3 + 1] + S[L.o_opp + p * 3 + 2])
    for t in range(5):
        x = S[L.o_imp + p * 5 + t]
        if x:
            v += W.improvement + (W.advanced if x == 2 else 0.0)
    v += W.hand_card * min(S[L.o_hand_n + p], W.hand_cap)
    for b in range(L.books):
        v += book_value(S, L, T, W, p, b)
    return v


@jit
def travel_move(S, L, T, W, p):
    """The greedy Travel decision ``(kind, a, b, c)``: head for the card of the best value net of
    its money, pick it up, or end the action (:func:`.agents.travel_move`)."""
    if S[L.o_hand_n + p] >= W.hand_cap:
        return K_END, 0, 0, 0
    budget = S[L.o_money + p] + T[L.t_travel_disc + S[L.o_imp + p * 5 + IMP_TRAVEL]] - S[G_T_COST]
    pos = S[L.o_pos + p]
    best, best_gain = -1, 0.0
    wander = S[L.o_opp + p * 3 + WANDERER] != 0
    disc = np.empty((L.books, 4), np.int64)
    for b in range(L.books):
        disc[b, 0], disc[b, 1], disc[b, 2], disc[b, 3] = book_discounts(S, L, T, p, b)
    k = W.card_cost_share * W.resource
    for i in range(L.spaces):
        c = S[L.o_board + i]
        if c < 0:
            continue
        low = -1
        for b in range(L.books):
            need = 0
            for x in range(4):
                cost = T[L.t_cost + c * 4 + x]
                if cost > disc[b, x]:
                    need += cost - disc[b, x]
            if low < 0 or need < low:
                low = need
        value = W.card_base[c] - k * low
        d = T[L.t_dist + pos * L.spaces + i]
        steps = 0 if (wander and d >= W.wander_steps) else d
        money = steps * L.step_money + L.pick_money
        if money > budget:
            continue
        gain = value - W.money * money - (W.opportunity if steps != d else 0.0)
        if gain > best_gain:
            best, best_gain = i, gain
    if best < 0:
        return K_END, 0, 0, 0
    if best == pos:
        return K_PICK, 0, 0, 0
    if wander and T[L.t_dist + pos * L.spaces + best] >= W.wander_steps:
        return K_WANDER, best, 0, 0
    return K_STEP, T[L.t_next + pos * L.spaces + best], 0, 0


@jit
def supply_move(S, L, T, p):
    """The greedy Supply decision ``(kind, a, b, c)``: the resource type most wanted by the hand for
    the first sketchbook, or end the action when the Backpack is full (:func:`.agents.supply_move`)."""
    if S[L.o_bp_n + p] >= L.backpack:
        return K_END, 0, 0, 0
    w0 = w1 = w2 = w3 = 0
    d0, d1, d2, d3 = book_discounts(S, L, T, p, np.int64(0))  # int64: one specialisation
    hand = L.o_hand + p * L.n_cards
    for i in range(S[L.o_hand_n + p]):
        e0, e1, e2, e3 = card_need(L, T, S[hand + i], d0, d1, d2, d3)
        w0 += e0
        w1 += e1
        w2 += e2
        w3 += e3
    h0, h1, h2, h3 = _backpack_counts(S, L, p)
    want = (w0 - h0, w1 - h1, w2 - h2, w3 - h3)
    best = -1
    for res in range(4):
        if S[L.o_reserve + res] > 0 and (best < 0 or want[res] > want[best]):
            best = res
    if best >= 0:
        return K_RESOURCE, best, 0, 0
    return K_END, 0, 0, 0


@inline
def _value_with(S, L, T, W, p, b, count_at, first, item):
    """book_value of sketchbook b with ``item`` appended to the list at S[first:] whose count is
    S[count_at] (its cards or its bonus tiles); the list is restored (its count and the slot past
    its end, so that the agents leave the position they value as it was)."""
    at = first + S[count_at]
    old = S[at]
    S[at] = item
    S[count_at] += 1
    v = book_value(S, L, T, W, p, b)
    S[count_at] -= 1
    S[at] = old
    return v


@inline
def _with_card(S, L, T, W, p, b, card):
    return _value_with(S, L, T, W, p, b, L.o_books_n + p * L.books + b, _book(L, p, b), card)


@inline
def _with_tile(S, L, T, W, p, b, tile):
    return _value_with(S, L, T, W, p, b, L.o_btiles_n + p * L.books + b, _tiles(L, p, b), tile)


@jit
def _pair_value(S, L, T, W, p, a, b, c, base, rng):
    ben = T[L.t_pairs + 3 * a + 2]
    if ben == BEN_UNFLIP:
        return base + W.opportunity
    if ben == BEN_BONUS:
        if b < 0:
            refill_display_draws(S, L, rng)
            return base + W.money * L.bonus_money
        before = book_value(S, L, T, W, p, c)
        tile = S[L.o_display + b]
        after = _with_tile(S, L, T, W, p, c, tile)
        S[L.o_display + b] = -1
        refill_display_draws(S, L, rng)
        S[L.o_display + b] = tile
        return base + after - before
    last = L.n_prestige - 1
    at = S[L.o_prestige + p]
    if at >= last:
        return base + W.money * L.prestige_overflow
    code = T[L.t_prew + at + 1]
    return base + T[L.t_pp + at + 1] - T[L.t_pp + at] + (W.money * L.reward_money if code == R_MONEY else 0.0)


@jit
def quick_value(S, L, T, W, p, kind, a, b, c, base, rng, opts):
    """agents.quick_value: (True, value) for the decisions it values without a copy (drawing
    from ``rng`` what a copy would), else (False, 0.0)."""
    ph = S[G_PHASE]
    if kind == K_SKETCH and ph == P_SKETCH:
        d0, d1, d2, d3 = book_discounts(S, L, T, p, b)
        before = book_value(S, L, T, W, p, b)
        need = card_need(L, T, a, d0, d1, d2, d3)
        if c >= 0:
            need = efficient_need(L, need, c, opts)
        h = S[L.o_hand_n + p]
        after = _with_card(S, L, T, W, p, b, a)
        return True, (
            base
            - W.resource * (need[0] + need[1] + need[2] + need[3])
            - W.money * T[L.t_extra + S[L.o_s_fee + b]]
            + W.hand_card * (min(h - 1, W.hand_cap) - min(h, W.hand_cap))
            - (W.opportunity if c >= 0 else 0.0)
            + after
            - before
        )
    if kind == K_END and ph == P_SKETCH:
        return True, base
    if kind == K_BONUS and ph == P_RESOLVE:
        before = book_value(S, L, T, W, p, b)
        after = _with_tile(S, L, T, W, p, b, S[L.o_display + a])
        return True, base + after - before
    if kind == K_BONUS_MONEY and ph == P_RESOLVE:
        return True, base + W.money * L.bonus_money
    if kind == K_THEME_PAIR and ph != P_MAIN:
        return True, _pair_value(S, L, T, W, p, a, b, c, base, rng)
    if kind == K_FUND:
        lvl = S[L.o_imp + p * 5 + IMP_FUNDING]
        pubs = S[G_TOTAL_PUB] if L.fund_all else S[L.o_pubs + p]
        gain = L.fund_money + L.fund_per_pub * pubs + L.fund_flip * a + T[L.t_funding_extra + lvl]
        tiles = T[L.t_funding_tiles + lvl]
        S[G_P_BONUS] += tiles
        continue_draws(S, L, rng)
        S[G_P_BONUS] -= tiles
        return True, base + W.money * gain
    if ph != P_RESOLVE:
        return False, 0.0
    if kind == K_UNFLIP:
        value = base + W.opportunity
        at = L.o_opp + p * 3 + a
        old = S[at]
        S[G_P_UNFLIP] -= 1
        S[at] = 1
        continue_draws(S, L, rng)
        S[G_P_UNFLIP] += 1
        S[at] = old
        return True, value
    if kind == K_IMPROVE:
        value = base + (W.advanced if b == 1 else W.improvement + (W.advanced if b == 2 else 0.0))
        by = 2 if b == 2 else 1
        S[G_P_IMP] -= by
        continue_draws(S, L, rng)
        S[G_P_IMP] += by
        return True, value
    if kind == K_IMPROVE_MONEY:
        value = base + W.money * L.improvement_money
        S[G_P_IMP] -= 1
        continue_draws(S, L, rng)
        S[G_P_IMP] += 1
        return True, value
    if kind == K_EXTRA_THEME:
        value = base + W.theme_tile
        S[G_P_XTHEME] -= 1
        S[L.o_theme_supply + a] -= 1
        continue_draws(S, L, rng)
        S[G_P_XTHEME] += 1
        S[L.o_theme_supply + a] += 1
        return True, value
    return False, 0.0


@inline
def pick_best(moves, values, m, rng):
    """agents.pick_best over rows 0..m-1: the best move, exact ties (within TIE) drawn from ``rng``."""
    top = values[0]
    for i in range(1, m):
        if values[i] > top:
            top = values[i]
    count = 0
    for i in range(m):
        if values[i] >= top - TIE:
            count += 1
    pick = 0 if count == 1 else rng.integers(0, count)
    for i in range(m):
        if values[i] >= top - TIE:
            if pick == 0:
                return moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3]
            pick -= 1
    return moves[0, 0], moves[0, 1], moves[0, 2], moves[0, 3]


@inline
def sub_move(S, L, T, W, rng, ws):
    """agents.sub_move: the greedy decision inside an action (uses ws.sub, ws.subvals, ws.b)."""
    p = S[G_SEAT]
    ph = S[G_PHASE]
    if ph == P_TRAVEL:
        return travel_move(S, L, T, W, p)
    if ph == P_SUPPLY:
        return supply_move(S, L, T, p)
    moves = ws.sub
    m = legal_moves(S, L, T, moves, ws.opts)
    if m == 1:
        return moves[0, 0], moves[0, 1], moves[0, 2], moves[0, 3]
    sub_values(S, L, T, W, moves, m, rng, ws, ws.subvals)
    return pick_best(moves, ws.subvals, m, rng)


@inline
def sub_values(S, L, T, W, moves, m, rng, ws, values):
    """The greedy value of each decision ``moves[:m]`` (rows, legal) inside an action or at Set Up
    into ``values`` (p's :func:`position_value` after it: :func:`quick_value` where it needs no copy,
    else on the copy ``ws.b``), as :func:`sub_move` values them (uses ws.b, ws.opts)."""
    p = S[G_SEAT]
    ph = S[G_PHASE]
    base = position_value(S, L, T, W, p) if (ph == P_SKETCH or ph == P_RESOLVE or ph == P_FUNDING) else 0.0
    for i in range(m):
        ok, v = quick_value(S, L, T, W, p, moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3], base, rng, ws.opts)
        if not ok:
            C = ws.b
            C[:] = S
            apply_move(C, L, T, moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3], rng, ws.opts)
            v = position_value(C, L, T, W, p)
        values[i] = v


@inline
def candidate_moves(S, L, T, out, tmp, keys, opts):
    """agents.candidate_moves into ``out``; returns their number (``tmp``: the legal moves behind them)."""
    m = legal_moves(S, L, T, tmp, opts)
    keys[:] = -1
    p = S[G_SEAT]
    nk = 0
    for i in range(m):
        if tmp[i, 0] != K_PLACE:
            continue
        action = tmp[i, 2] >> 3
        if action == SUPPLY:
            key = 80
            score = -abs(S[L.o_dice + tmp[i, 1]] - S[L.o_sup_tile + (tmp[i, 2] & 7)])
        else:
            key = tmp[i, 2] * 2 + tmp[i, 3]
            score = place_cost(S, L, p, tmp[i, 1], action)[0] if not tmp[i, 3] else 0
        slot = keys[key]
        if slot < 0:
            keys[key] = nk
            out[nk, 0], out[nk, 1] = score, i
            nk += 1
        elif score < out[slot, 0]:
            out[slot, 0], out[slot, 1] = score, i
    for j in range(nk):
        i = out[j, 1]
        out[j, 0], out[j, 1], out[j, 2], out[j, 3] = tmp[i, 0], tmp[i, 1], tmp[i, 2], tmp[i, 3]
    n = nk
    for i in range(m):
        if tmp[i, 0] != K_PLACE:
            out[n, 0], out[n, 1], out[n, 2], out[n, 3] = tmp[i, 0], tmp[i, 1], tmp[i, 2], tmp[i, 3]
            n += 1
    return n


@inline
def finish_turn(S, L, T, W, p, rng, ws):
    """Play p's greedy decisions inside the current action until the turn ends (:func:`.agents.finish_turn`)."""
    while S[G_PHASE] != P_OVER and S[G_SEAT] == p and S[G_PHASE] != P_MAIN:
        k, a, b, c = sub_move(S, L, T, W, rng, ws)
        apply_move(S, L, T, k, a, b, c, rng, ws.opts)


@inline
def main_move(S, L, T, W, rng, ws):
    """agents.main_move: the greedy choice of a die (or theme-tile pair), one action ahead."""
    moves = ws.cand
    m = candidate_moves(S, L, T, moves, ws.tmp, ws.keys, ws.opts)
    if m == 1:
        return moves[0, 0], moves[0, 1], moves[0, 2], moves[0, 3]
    turn_values(S, L, T, W, moves, m, rng, ws, ws.vals)
    return pick_best(moves, ws.vals, m, rng)


@jit
def turn_values(S, L, T, W, moves, m, rng, ws, values):
    """The greedy value of each choice of a die (or theme-tile pair) ``moves[:m]`` (rows, legal)
    into ``values``: on the copy ``ws.a``, the choice, then the turn finished by :func:`finish_turn`,
    then the mover's :func:`position_value`, as :func:`main_move` values its candidates (uses
    ws.a and what :func:`sub_move` uses)."""
    p = S[G_SEAT]
    C = ws.a
    for i in range(m):
        C[:] = S
        apply_move(C, L, T, moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3], rng, ws.opts)
        finish_turn(C, L, T, W, p, rng, ws)
        values[i] = position_value(C, L, T, W, p)


@inline
def random_move(S, L, T, rng, ws):
    """A legal decision ``(kind, a, b, c)`` drawn uniformly with one ``rng.random()``
    (``agents.RandomAgent``, the interface's ``core.kernel.uniform_move``)."""
    m = legal_moves(S, L, T, ws.sub, ws.opts)
    i = min(int(rng.random() * m), m - 1)
    return ws.sub[i, 0], ws.sub[i, 1], ws.sub[i, 2], ws.sub[i, 3]


@inline
def choose(S, L, T, W, kind, rng, ws):
    """The decision of agent ``kind`` (:data:`AGENT_KINDS`) for the seat to move."""
    if kind == 0:
        return random_move(S, L, T, rng, ws)
    if S[G_PHASE] == P_MAIN:
        return main_move(S, L, T, W, rng, ws)
    return sub_move(S, L, T, W, rng, ws)


@inline
def checkpoint_due(S, k):
    """Whether checkpoint ``k`` (0-based: the end of round ``k + 1``) is due in ``S``: round ``k`` has
    ended (a later round is under way), or the game ended within it. The trajectory's one rule of when
    a checkpoint is due: :func:`play` and the kernel's ``record_checkpoint`` (the generic loop's) ask it."""
    return S[G_ROUND] > k or (S[G_PHASE] == P_OVER and S[G_ROUND] == k)


@inline
def play(S, L, T, W, kinds, game_rng, agent_rng, ws, record, trail):
    """Play state ``S`` to the end, seat i's decisions by agent ``kinds[i]`` (:data:`AGENT_KINDS`)
    with ``agent_rng``, chance from ``game_rng``; the first ``len(record)`` decisions are written to
    ``record`` (int64[k, 4]). ``trail`` (int64[m, n], m 0 or ``L.max_rounds``): the game's trajectory,
    row r each seat's points if the game ended at the end of round r + 1 (:func:`final_components`,
    summed), the last row written (``S[G_ROUND]``) the game's end; nothing is written when m is 0.
    Returns the number of decisions."""
    count = 0
    comps = np.zeros((5 if trail.shape[0] else 0, L.n), np.int64)
    rnd = S[G_ROUND]
    while S[G_PHASE] != P_OVER:
        k, a, b, c = choose(S, L, T, W, kinds[S[G_SEAT]], agent_rng, ws)
        if count < record.shape[0]:
            record[count, 0], record[count, 1], record[count, 2], record[count, 3] = k, a, b, c
        count += 1
        apply_move(S, L, T, k, a, b, c, game_rng, ws.opts)
        if trail.shape[0] and checkpoint_due(S, rnd):  # a round ended (or the game)
            if rnd < trail.shape[0]:
                final_components(S, L, T, comps)  # the next round's dice change no points: its end as it stands
                for p in range(L.n):
                    trail[rnd, p] = comps[0, p] + comps[1, p] + comps[2, p] + comps[3, p] + comps[4, p]
            rnd = S[G_ROUND]
    return count


@jit
def playout(S, L, T, W, rng, ws, stop_round):
    """agents.playout: greedy decisions for every seat, chance and choices from ``rng``, until the
    game ends or round ``stop_round`` starts."""
    while S[G_PHASE] != P_OVER and S[G_ROUND] < stop_round:
        if S[G_PHASE] == P_MAIN:
            k, a, b, c = main_move(S, L, T, W, rng, ws)
        else:
            k, a, b, c = sub_move(S, L, T, W, rng, ws)
        apply_move(S, L, T, k, a, b, c, rng, ws.opts)
