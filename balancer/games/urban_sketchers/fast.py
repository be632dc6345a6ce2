"""Urban Sketchers compiled engine: the rules of :mod:`.rules` and the ``random`` and ``greedy``
agents of :mod:`.agents`, in numba, playing exactly the same games (same legal-move order, same
choices, same draws from the same generators; ``tests/games/urban_sketchers/test_us_fast.py``
checks it move for move).

The readable engine stays the reference; this module is its translation for speed. Set Up 1-10
(:func:`.rules.new_state`) and final scoring (:func:`.scoring.final_components`) run once per game
and are not translated: a game starts from a reference state copied in (:func:`load`) and its
final state is copied back (:func:`to_reference`) for :func:`.outcome`.

The state (:class:`FastState`) is one int64 buffer with named views: the table's and players'
numbers as the reference's lists, variable-length lists as an array plus a count (``bp``/``bp_n``
Backpack in order of arrival, ``hand``/``hand_n`` in order of arrival, ``books``/``books_n`` and
``btiles``/``btiles_n`` per seat and sketchbook, the deck, discards, bonus bag and its discards
with their counts in ``g``), the scalars in ``g`` (``G_*``), the statistics in ``st`` (``ST_*``) and
``st_actions``/``st_colours``/``st_imp``. Copying a state for a look-ahead is one copy of the
buffer into a preallocated scratch state (:func:`copy_state`). A move is ``(kind, a, b, c)`` as in
the reference (``rules.K_*``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from .config import UrbanSketchersConfig
from .rules import (B_EXTRA_THEME, B_LONGER, B_MONEY, B_STREAK0, BEN_BONUS, BEN_UNFLIP, EFFICIENT, IMP_FUNDING,
                    IMP_PUBLISH, IMP_SKETCH, IMP_SUPPLY, IMP_TRAVEL, K_BONUS, K_BONUS_MONEY, K_END, K_EXTRA_THEME,
                    K_FUND, K_IMPROVE, K_IMPROVE_MONEY, K_PASS, K_PICK, K_PLACE, K_RESOURCE, K_SETUP_DISCARD,
                    K_SETUP_DONE, K_SKETCH, K_STEP, K_THEME_PAIR, K_UNFLIP, K_WANDER, OPPORTUNIST, P_FUNDING, P_MAIN,
                    P_OVER, P_RESOLVE, P_SETUP, P_SKETCH, P_SUPPLY, P_TRAVEL, PUBLISH, R_IMPROVEMENT, R_MONEY,
                    R_UNFLIP, SUPPLY, TRAVEL, SKETCH, FUNDING, WANDERER, WHITE, Rules, State)

jit = nb.njit(cache=True)

# scalars in FastState.g
(G_PHASE, G_SEAT, G_SETUP_SEAT, G_ROUND, G_FIRST, G_TTURN, G_ACTED, G_OVER, G_END, G_ACT_TILE, G_TOTAL_PUB,
 G_T_COST, G_S_ICONS, G_S_CARDS, G_SUP_LEFT, G_P_BONUS, G_P_XTHEME, G_P_IMP, G_P_UNFLIP, G_X_N, G_DECK_N,
 G_DISCARD_N, G_BAG_N, G_BDISC_N, G_NDICE) = range(25)
N_G = 25
G_NAMES = ("phase", "seat", "setup_seat", "round", "first", "tturn", "acted", "over", "end_triggered", "act_tile",
           "total_pub", "t_cost", "s_icons", "s_cards", "sup_left", "p_bonus", "p_xtheme", "p_imp", "p_unflip")
"""The reference's scalar attributes held in ``g[0:19]``, in order."""
# per-seat statistics in FastState.st
ST_NAMES = ("st_paid_players", "st_paid_bank", "st_white", "st_pub_sizes", "st_pub_count", "st_turns",
            "st_prestige_money", "st_received")
ST_PAID_PLAYERS, ST_PAID_BANK, ST_WHITE, ST_PUB_SIZES, ST_PUB_COUNT, ST_TURNS, ST_PRESTIGE_MONEY, ST_RECEIVED = range(8)

AGENT_KINDS = {"random": 0, "greedy": 1}
"""The agents this engine plays, by the code :func:`play` takes per seat."""

TIE = 1e-9   # agents.TIE


class FastRules(NamedTuple):
    """:class:`.rules.Rules` as ints and int64 arrays (lists of lists padded)."""

    n: int
    first_player: int
    n_white: int
    faces: int
    action_colour: np.ndarray   # [4]
    n_supply: int
    spaces: int
    nbr: np.ndarray             # [spaces, max degree] neighbours, sorted, padded -1
    nbr_n: np.ndarray           # [spaces]
    dist: np.ndarray            # [spaces, spaces]
    next_step: np.ndarray       # [spaces, spaces]
    step_money: int
    pick_money: int
    max_cards: int
    max_tiles: int
    extra_card_money: np.ndarray
    bonus_money: int
    efficient: int
    books: int
    fund_money: int
    fund_per_pub: int
    fund_all: int
    fund_flip: int
    vp: np.ndarray
    money_per_card: int
    beyond_money: int
    money_tile: int
    prestige_points: np.ndarray
    prestige_reward: np.ndarray
    prestige_overflow: int
    published_reward: np.ndarray
    reward_money: int
    improvement_money: int
    slots: int
    travel_discount: np.ndarray  # [3] by improvement level
    sketch_bonus: np.ndarray
    prestige_extra: np.ndarray
    funding_extra: np.ndarray
    funding_tiles: np.ndarray
    supply_extra: np.ndarray
    display: int
    tile_kind: np.ndarray
    pairs: np.ndarray            # [pairs, 3]: space, space, benefit
    funding_space: int
    end_total: int
    max_rounds: int
    backpack: int
    n_cards: int
    cost: np.ndarray             # [cards, 4]
    discount: np.ndarray
    bonus: np.ndarray
    region: np.ndarray
    themes: np.ndarray           # [cards, max icons] padded -1
    themes_n: np.ndarray
    n_regions: int
    max_moves: int               # rows of a legal-move buffer that always suffice


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
    card_base: np.ndarray


class FastState(NamedTuple):
    """A game in progress: views into ``buf`` (see the module docstring)."""

    buf: np.ndarray
    g: np.ndarray
    dice: np.ndarray
    dcol: np.ndarray
    dused: np.ndarray
    occ: np.ndarray
    cuser: np.ndarray
    cval: np.ndarray
    sup_tile: np.ndarray
    sup_occ: np.ndarray
    theme_at: np.ndarray
    deck: np.ndarray
    discard: np.ndarray
    board: np.ndarray
    bag: np.ndarray
    display: np.ndarray
    bdiscard: np.ndarray
    reserve: np.ndarray
    theme_supply: np.ndarray
    imp_supply: np.ndarray
    money: np.ndarray
    bp: np.ndarray
    bp_n: np.ndarray
    hand: np.ndarray
    hand_n: np.ndarray
    books: np.ndarray
    books_n: np.ndarray
    btiles: np.ndarray
    btiles_n: np.ndarray
    vp: np.ndarray
    prestige: np.ndarray
    pubs: np.ndarray
    th_up: np.ndarray
    th_down: np.ndarray
    opp: np.ndarray
    imp: np.ndarray
    pos: np.ndarray
    s_fee: np.ndarray
    x_allowed: np.ndarray
    st: np.ndarray
    st_actions: np.ndarray
    st_colours: np.ndarray
    st_imp: np.ndarray


def _i64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def _padded(rows, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    width = max([len(x) for x in rows] + [1]) if width is None else width
    out = np.full((len(rows), width), -1, np.int64)
    for i, x in enumerate(rows):
        out[i, :len(x)] = x
    return out, _i64([len(x) for x in rows])


def fast_rules(r: Rules) -> FastRules:
    """The reference's compiled variant as :class:`FastRules`."""
    nbr, nbr_n = _padded(r.neighbours)
    themes, themes_n = _padded(r.themes)
    dice = 4 + r.n_white
    n_pairs = len(r.pairs)
    max_moves = (dice * (8 * r.books + r.n_supply) + n_pairs * max(3, r.books * r.display) + r.books * r.n_cards * 11
                 + 2 * r.spaces + r.themes_per_type * 4 + r.n_cards + 64)
    return FastRules(
        n=r.n, first_player=r.first_player, n_white=r.n_white, faces=r.faces, action_colour=_i64(r.action_colour),
        n_supply=r.n_supply, spaces=r.spaces, nbr=nbr, nbr_n=nbr_n, dist=_i64(r.dist), next_step=_i64(r.next_step),
        step_money=r.step_money, pick_money=r.pick_money, max_cards=r.max_cards, max_tiles=r.max_tiles,
        extra_card_money=_i64(r.extra_card_money), bonus_money=r.bonus_money, efficient=r.efficient, books=r.books,
        fund_money=r.fund_money, fund_per_pub=r.fund_per_pub, fund_all=int(r.fund_all), fund_flip=r.fund_flip,
        vp=_i64(r.vp), money_per_card=r.money_per_card, beyond_money=r.beyond_money, money_tile=r.money_tile,
        prestige_points=_i64(r.prestige_points), prestige_reward=_i64(r.prestige_reward),
        prestige_overflow=r.prestige_overflow, published_reward=_i64(r.published_reward),
        reward_money=r.reward_money, improvement_money=r.improvement_money, slots=r.slots,
        travel_discount=_i64(r.travel_discount), sketch_bonus=_i64(r.sketch_bonus),
        prestige_extra=_i64(r.prestige_extra), funding_extra=_i64(r.funding_extra),
        funding_tiles=_i64(r.funding_tiles), supply_extra=_i64(r.supply_extra), display=r.display,
        tile_kind=_i64(r.tile_kind), pairs=_i64(r.pairs).reshape(n_pairs, 3), funding_space=r.funding_space,
        end_total=r.end_total, max_rounds=r.max_rounds, backpack=r.backpack, n_cards=r.n_cards,
        cost=_i64(r.cost).reshape(r.n_cards, 4), discount=_i64(r.discount), bonus=_i64(r.bonus),
        region=_i64(r.region), themes=themes, themes_n=themes_n, n_regions=r.n_regions, max_moves=max_moves)


def fast_weights(cfg: UrbanSketchersConfig, r: Rules) -> FastWeights:
    """``agents.Weights`` of ``cfg`` for the variant ``r`` (card values computed as the reference does)."""
    g = cfg.agents.greedy
    base = [g.hand_card + 0.5 * r.bonus[c] + 0.5 * len(r.themes[c]) for c in range(r.n_cards)]
    return FastWeights(money=g.money, resource=g.resource, hand_card=g.hand_card, hand_cap=g.hand_cap,
                       book_fraction=g.book_fraction, growth=g.growth, theme_tile=g.theme_tile,
                       opportunity=g.opportunity, improvement=g.improvement, advanced=g.advanced,
                       bonus_tile=g.bonus_tile, card_base=np.asarray(base, np.float64))


def _shapes(r: Rules) -> list[tuple[str, tuple[int, ...]]]:
    n, books, cards, tiles = r.n, r.books, r.n_cards, len(r.tile_kind)
    dice = 4 + r.n_white
    return [("g", (N_G,)), ("dice", (dice,)), ("dcol", (dice,)), ("dused", (dice,)), ("occ", (4, n)),
            ("cuser", (4,)), ("cval", (4,)), ("sup_tile", (r.n_supply,)), ("sup_occ", (r.n_supply,)),
            ("theme_at", (4,)), ("deck", (cards,)), ("discard", (cards,)), ("board", (r.spaces,)), ("bag", (tiles,)),
            ("display", (r.display,)), ("bdiscard", (tiles,)), ("reserve", (4,)), ("theme_supply", (4,)),
            ("imp_supply", (5,)), ("money", (n,)), ("bp", (n, r.backpack)), ("bp_n", (n,)), ("hand", (n, cards)),
            ("hand_n", (n,)), ("books", (n, books, r.max_cards)), ("books_n", (n, books)),
            ("btiles", (n, books, max(1, r.max_tiles))), ("btiles_n", (n, books)), ("vp", (n,)), ("prestige", (n,)),
            ("pubs", (n,)), ("th_up", (n, 4)), ("th_down", (n, 4)), ("opp", (n, 3)), ("imp", (n, 5)), ("pos", (n,)),
            ("s_fee", (books,)), ("x_allowed", (4,)), ("st", (n, 8)), ("st_actions", (n, 5)),
            ("st_colours", (n, 5)), ("st_imp", (n, 5))]


def alloc_state(r: Rules) -> FastState:
    """A zeroed :class:`FastState` for the variant ``r``."""
    shapes = _shapes(r)
    buf = np.zeros(sum(int(np.prod(s)) for _, s in shapes), np.int64)
    views, at = {}, 0
    for name, shape in shapes:
        size = int(np.prod(shape))
        views[name] = buf[at:at + size].reshape(shape)
        at += size
    return FastState(buf=buf, **views)


def load(s: State, f: FastState) -> FastState:
    """Copy the reference state ``s`` into ``f`` (allocated for ``s.rules``); returns ``f``."""
    r = s.rules
    f.buf[:] = 0
    for i, name in enumerate(G_NAMES):
        f.g[i] = int(getattr(s, name))
    f.g[G_X_N] = len(s.x_allowed)
    f.x_allowed[:len(s.x_allowed)] = s.x_allowed
    for name, key in (("deck", G_DECK_N), ("discard", G_DISCARD_N), ("bag", G_BAG_N), ("bdiscard", G_BDISC_N)):
        items = getattr(s, name)
        f.g[key] = len(items)
        getattr(f, name)[:len(items)] = items
    f.g[G_NDICE] = len(s.dice)
    for name in ("dice", "dcol", "dused"):
        getattr(f, name)[:len(s.dice)] = [int(x) for x in getattr(s, name)]
    for name in ("occ", "cuser", "cval", "sup_tile", "sup_occ", "theme_at", "board", "display", "reserve",
                 "theme_supply", "imp_supply", "money", "vp", "prestige", "pubs", "th_up", "th_down", "opp", "imp",
                 "pos", "s_fee"):
        getattr(f, name)[...] = np.asarray(getattr(s, name), dtype=np.int64)
    for p in range(r.n):
        f.bp_n[p] = len(s.bp[p])
        f.bp[p, :len(s.bp[p])] = s.bp[p]
        f.hand_n[p] = len(s.hand[p])
        f.hand[p, :len(s.hand[p])] = s.hand[p]
        for b in range(r.books):
            f.books_n[p, b] = len(s.books[p][b])
            f.books[p, b, :len(s.books[p][b])] = s.books[p][b]
            f.btiles_n[p, b] = len(s.btiles[p][b])
            f.btiles[p, b, :len(s.btiles[p][b])] = s.btiles[p][b]
    for i, name in enumerate(ST_NAMES):
        f.st[:, i] = getattr(s, name)
    f.st_actions[...] = s.st_actions
    f.st_colours[...] = s.st_colours
    f.st_imp[...] = s.st_imp_taken
    return f


def to_reference(f: FastState, r: Rules, rng: np.random.Generator | None = None) -> State:
    """The reference :class:`.rules.State` equal to ``f`` (lists of ints, flags as bools)."""
    s = State.__new__(State)
    s.rules, s.rng = r, rng
    g = [int(x) for x in f.g]
    for i, name in enumerate(G_NAMES):
        setattr(s, name, g[i])
    for name in ("acted", "over", "end_triggered"):
        setattr(s, name, bool(getattr(s, name)))
    s.x_allowed = [int(x) for x in f.x_allowed[:g[G_X_N]]]
    s.deck = f.deck[:g[G_DECK_N]].tolist()
    s.discard = f.discard[:g[G_DISCARD_N]].tolist()
    s.bag = f.bag[:g[G_BAG_N]].tolist()
    s.bdiscard = f.bdiscard[:g[G_BDISC_N]].tolist()
    k = g[G_NDICE]
    s.dice, s.dcol = f.dice[:k].tolist(), f.dcol[:k].tolist()
    s.dused = [bool(x) for x in f.dused[:k]]
    s.occ = [[bool(x) for x in row] for row in f.occ]
    s.sup_occ = [bool(x) for x in f.sup_occ]
    for name in ("cuser", "cval", "sup_tile", "theme_at", "board", "display", "reserve", "theme_supply", "imp_supply",
                 "money", "vp", "prestige", "pubs", "th_up", "th_down", "opp", "imp", "pos", "s_fee"):
        setattr(s, name, getattr(f, name).tolist())
    s.act_tile = g[G_ACT_TILE]
    n = r.n
    s.bp = [f.bp[p, :f.bp_n[p]].tolist() for p in range(n)]
    s.hand = [f.hand[p, :f.hand_n[p]].tolist() for p in range(n)]
    s.books = [[f.books[p, b, :f.books_n[p, b]].tolist() for b in range(r.books)] for p in range(n)]
    s.btiles = [[f.btiles[p, b, :f.btiles_n[p, b]].tolist() for b in range(r.books)] for p in range(n)]
    for i, name in enumerate(ST_NAMES):
        setattr(s, name, f.st[:, i].tolist())
    s.st_actions, s.st_colours, s.st_imp_taken = f.st_actions.tolist(), f.st_colours.tolist(), f.st_imp.tolist()
    return s


class Workspace(NamedTuple):
    """Preallocated buffers of the agents: two scratch states (a's copies of the real state for
    the choice of a die, b's for the decisions inside an action), move lists and their values."""

    a: FastState
    b: FastState
    cand: np.ndarray   # int64[max_moves, 4]: greedy's candidate die choices
    tmp: np.ndarray    # int64[max_moves, 4]: legal moves behind the candidates
    sub: np.ndarray    # int64[max_moves, 4]: legal moves inside an action
    vals: np.ndarray   # float64[max_moves]
    subvals: np.ndarray
    keys: np.ndarray   # int64[81]: candidate slot per (place target, Opportunist) key


def workspace(r: Rules, fr: FastRules) -> Workspace:
    """A :class:`Workspace` for the variant."""
    m = fr.max_moves
    return Workspace(a=alloc_state(r), b=alloc_state(r), cand=np.zeros((m, 4), np.int64),
                     tmp=np.zeros((m, 4), np.int64), sub=np.zeros((m, 4), np.int64), vals=np.zeros(m),
                     subvals=np.zeros(m), keys=np.zeros(81, np.int64))


# --------------------------------------------------------------------------------------------------
# shared helpers (rules.py, same names)


@jit
def copy_state(dst, src):
    """Copy ``src`` into ``dst`` (one buffer copy)."""
    dst.buf[:] = src.buf


@jit
def _put(out, n, k, a, b, c):
    out[n, 0] = k
    out[n, 1] = a
    out[n, 2] = b
    out[n, 3] = c
    return n + 1


@jit
def place_cost(s, p, die, action):
    if s.dcol[die] != WHITE:
        return 0, -1
    v = s.dice[die]
    if s.cuser[action] >= 0:
        return abs(v - s.cval[action]), s.cuser[action]
    return abs(v - s.g[G_ACT_TILE]), -1


@jit
def book_discounts(s, r, p, b):
    d0 = d1 = d2 = d3 = 0
    for i in range(s.books_n[p, b]):
        x = r.discount[s.books[p, b, i]]
        if x == 0:
            d0 += 1
        elif x == 1:
            d1 += 1
        elif x == 2:
            d2 += 1
        elif x == 3:
            d3 += 1
    for i in range(s.btiles_n[p, b]):
        k = r.tile_kind[s.btiles[p, b, i]]
        if k == 0:
            d0 += 1
        elif k == 1:
            d1 += 1
        elif k == 2:
            d2 += 1
        elif k == 3:
            d3 += 1
    return d0, d1, d2, d3


@jit
def card_need(r, card, d0, d1, d2, d3):
    c0, c1, c2, c3 = r.cost[card, 0], r.cost[card, 1], r.cost[card, 2], r.cost[card, 3]
    return (c0 - d0 if c0 > d0 else 0, c1 - d1 if c1 > d1 else 0, c2 - d2 if c2 > d2 else 0,
            c3 - d3 if c3 > d3 else 0)


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
                if (opts[j, 1] == opts[k, 1] and opts[j, 2] == opts[k, 2] and opts[j, 3] == opts[k, 3]
                        and opts[j, 4] == opts[k, 4]):
                    dup = True
                    break
            if not dup:
                opts[k, 0] = r1 * 4 + r2
                k += 1
    return k


@jit
def efficient_need(r, need, code):
    """The reduced need of Efficient option ``code`` (legal) for ``need``."""
    opts = np.empty((10, 5), np.int64)
    m = efficient_options(need[0], need[1], need[2], need[3], r.efficient, opts)
    for j in range(m):
        if opts[j, 0] == code:
            return opts[j, 1], opts[j, 2], opts[j, 3], opts[j, 4]
    return need


@jit
def longest_streak(s, r, p, b):
    b0 = b1 = b2 = 0
    run_region, run = -1, 0
    for i in range(s.books_n[p, b]):
        g = r.region[s.books[p, b, i]]
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
    for i in range(s.btiles_n[p, b]):
        k = r.tile_kind[s.btiles[p, b, i]]
        if B_STREAK0 <= k < B_STREAK0 + r.n_regions:
            g = k - B_STREAK0
            if g == 0 and b0 > 0:
                b0 += 1
            elif g == 1 and b1 > 0:
                b1 += 1
            elif g == 2 and b2 > 0:
                b2 += 1
    return max(b0, b1, b2)


@jit
def book_money(s, r, p, b):
    longer = money_tiles = 0
    for i in range(s.btiles_n[p, b]):
        k = r.tile_kind[s.btiles[p, b, i]]
        if k == B_LONGER:
            longer += 1
        elif k == B_MONEY:
            money_tiles += 1
    size = s.books_n[p, b] + longer
    top = r.max_cards
    vp = r.vp[size if size <= top else top]
    money = size * r.money_per_card + money_tiles * r.money_tile
    if size > top:
        money += (size - top) * r.beyond_money
    return vp, money


@jit
def _hand_remove(s, p, card):
    h = s.hand[p]
    m = s.hand_n[p]
    for i in range(m):
        if h[i] == card:
            for j in range(i, m - 1):
                h[j] = h[j + 1]
            s.hand_n[p] = m - 1
            return


@jit
def gain_resource(s, r, p, res):
    if s.bp_n[p] >= r.backpack:
        old = s.bp[p, 0]
        for j in range(s.bp_n[p] - 1):
            s.bp[p, j] = s.bp[p, j + 1]
        s.bp_n[p] -= 1
        s.reserve[old] += 1
    s.bp[p, s.bp_n[p]] = res
    s.bp_n[p] += 1
    s.reserve[res] -= 1


@jit
def _pay_resources(s, p, need):
    for res in range(4):
        k = need[res]
        while k:
            m = s.bp_n[p]
            for i in range(m):
                if s.bp[p, i] == res:
                    for j in range(i, m - 1):
                        s.bp[p, j] = s.bp[p, j + 1]
                    s.bp_n[p] = m - 1
                    break
            s.reserve[res] += 1
            k -= 1


@jit
def _reward(s, r, p, code):
    if code == R_UNFLIP:
        s.g[G_P_UNFLIP] += 1
    elif code == R_IMPROVEMENT:
        s.g[G_P_IMP] += 1
    elif code == R_MONEY:
        s.money[p] += r.reward_money


@jit
def advance_prestige(s, r, p, steps):
    last = r.prestige_points.shape[0] - 1
    for _ in range(steps):
        if s.prestige[p] < last:
            s.prestige[p] += 1
            code = r.prestige_reward[s.prestige[p]]
            if code >= 0:
                _reward(s, r, p, code)
        else:
            s.money[p] += r.prestige_overflow
            s.st[p, ST_PRESTIGE_MONEY] += r.prestige_overflow


@jit
def _refill(slots, pile, pile_key, discard, discard_key, g, rng):
    for i in range(slots.shape[0]):
        if slots[i] < 0:
            if g[pile_key] == 0 and g[discard_key] > 0:
                m = g[discard_key]
                perm = np.arange(m)
                rng.shuffle(perm)
                for j in range(m):
                    pile[j] = discard[perm[j]]
                g[pile_key] = m
                g[discard_key] = 0
            if g[pile_key] > 0:
                g[pile_key] -= 1
                slots[i] = pile[g[pile_key]]


@jit
def publish(s, r, p, b):
    vp, money = book_money(s, r, p, b)
    s.vp[p] += vp
    s.money[p] += money
    mask = 0
    for i in range(s.books_n[p, b]):
        c = s.books[p, b, i]
        for j in range(r.themes_n[c]):
            t = r.themes[c, j]
            if s.theme_supply[t] > 0:
                s.theme_supply[t] -= 1
                s.th_up[p, t] += 1
                mask |= 1 << t
    extra = 0
    for i in range(s.btiles_n[p, b]):
        if r.tile_kind[s.btiles[p, b, i]] == B_EXTRA_THEME:
            extra += 1
    if extra and mask:
        s.g[G_P_XTHEME] += extra
        k = 0
        for t in range(4):
            if mask & (1 << t):
                s.x_allowed[k] = t
                k += 1
        s.g[G_X_N] = k
    s.pubs[p] += 1
    s.g[G_TOTAL_PUB] += 1
    if s.pubs[p] < r.published_reward.shape[0] and r.published_reward[s.pubs[p]] >= 0:
        _reward(s, r, p, r.published_reward[s.pubs[p]])
    steps = longest_streak(s, r, p, b) + r.prestige_extra[s.imp[p, IMP_PUBLISH]]
    advance_prestige(s, r, p, steps)
    s.st[p, ST_PUB_SIZES] += s.books_n[p, b]
    s.st[p, ST_PUB_COUNT] += 1
    for i in range(s.books_n[p, b]):
        s.discard[s.g[G_DISCARD_N]] = s.books[p, b, i]
        s.g[G_DISCARD_N] += 1
    for i in range(s.btiles_n[p, b]):
        s.bdiscard[s.g[G_BDISC_N]] = s.btiles[p, b, i]
        s.g[G_BDISC_N] += 1
    s.books_n[p, b] = 0
    s.btiles_n[p, b] = 0
    if s.g[G_TOTAL_PUB] >= r.end_total:
        s.g[G_END] = 1


# --------------------------------------------------------------------------------------------------
# rounds and turns


@jit
def _roll(s, r, rng):
    k = 4 + r.n_white
    vals = rng.integers(0, r.faces, size=k)
    for i in range(k):
        s.dice[i] = vals[i] + 1
        s.dcol[i] = i if i < 4 else WHITE
        s.dused[i] = 0
    s.g[G_NDICE] = k
    s.occ[:, :] = 0
    s.cuser[:] = -1
    s.cval[:] = 0
    s.sup_occ[:] = 0


@jit
def _start_round(s, r, rng):
    _roll(s, r, rng)
    s.g[G_TTURN] = 0
    s.g[G_SEAT] = s.g[G_FIRST]
    s.g[G_PHASE] = P_MAIN
    s.g[G_ACTED] = 0


@jit
def _end_turn(s, r, rng):
    g = s.g
    s.st[g[G_SEAT], ST_TURNS] += 1
    g[G_TTURN] += 1
    if g[G_TTURN] < 2 * r.n:
        g[G_SEAT] = (g[G_FIRST] + g[G_TTURN]) % r.n
        g[G_PHASE] = P_MAIN
        g[G_ACTED] = 0
        return
    if g[G_END] or g[G_ROUND] + 1 >= r.max_rounds:
        g[G_OVER] = 1
        g[G_PHASE] = P_OVER
        return
    g[G_ROUND] += 1
    g[G_FIRST] = (g[G_FIRST] + 1) % r.n
    _start_round(s, r, rng)


@jit
def _x_available(s):
    for i in range(s.g[G_X_N]):
        if s.theme_supply[s.x_allowed[i]]:
            return True
    return False


@jit
def _opp_down(s, p):
    return s.opp[p, 0] == 0 or s.opp[p, 1] == 0 or s.opp[p, 2] == 0


@jit
def _continue(s, r, rng):
    g = s.g
    p = g[G_SEAT]
    if g[G_P_XTHEME]:
        if _x_available(s):
            g[G_PHASE] = P_RESOLVE
            return
        g[G_P_XTHEME] = 0
    if g[G_P_IMP]:
        g[G_PHASE] = P_RESOLVE
        return
    if g[G_P_UNFLIP]:
        if _opp_down(s, p):
            g[G_PHASE] = P_RESOLVE
            return
        g[G_P_UNFLIP] = 0
    if g[G_P_BONUS]:
        g[G_PHASE] = P_RESOLVE
        return
    if g[G_ACTED]:
        _end_turn(s, r, rng)
    else:
        g[G_PHASE] = P_MAIN


@jit
def choice_pending(s):
    g = s.g
    if g[G_P_XTHEME] and _x_available(s):
        return True
    if g[G_P_IMP]:
        return True
    if g[G_P_UNFLIP] and _opp_down(s, g[G_SEAT]):
        return True
    return g[G_P_BONUS] != 0


@jit
def continue_draws(s, r, rng):
    if choice_pending(s) or not s.g[G_ACTED]:
        return
    g = s.g
    if g[G_TTURN] + 1 >= 2 * r.n and not (g[G_END] or g[G_ROUND] + 1 >= r.max_rounds):
        rng.integers(0, r.faces, size=4 + r.n_white)


@jit
def refill_display_draws(s, rng):
    empty = 0
    for i in range(s.display.shape[0]):
        if s.display[i] < 0:
            empty += 1
    if empty > s.g[G_BAG_N] and s.g[G_BDISC_N] > 0:
        perm = np.arange(s.g[G_BDISC_N])
        rng.shuffle(perm)


# --------------------------------------------------------------------------------------------------
# legal decisions (rules.legal_moves, same order)


@jit
def _place_moves(s, r, out, n):
    p = s.g[G_SEAT]
    money = s.money[p]
    opp_ready = s.opp[p, OPPORTUNIST]
    for d in range(s.g[G_NDICE]):
        if s.dused[d]:
            continue
        seen = False
        for e in range(d):
            if not s.dused[e] and s.dcol[e] == s.dcol[d] and s.dice[e] == s.dice[d]:
                seen = True
                break
        if seen:
            continue
        col = s.dcol[d]
        for a in range(4):
            if s.occ[a, p] or (col != WHITE and col != r.action_colour[a]):
                continue
            cost, _ = place_cost(s, p, d, a)
            for arg in range(r.books if a == PUBLISH else 1):
                if a == PUBLISH and s.books_n[p, arg] == 0:
                    continue
                if cost <= money:
                    n = _put(out, n, K_PLACE, d, a * 8 + arg, 0)
                if cost > 0 and opp_ready:
                    n = _put(out, n, K_PLACE, d, a * 8 + arg, 1)
        for k in range(r.n_supply):
            if not s.sup_occ[k]:
                n = _put(out, n, K_PLACE, d, SUPPLY * 8 + k, 0)
    return n


@jit
def _theme_pair_moves(s, r, out, n):
    p = s.g[G_SEAT]
    for i in range(r.pairs.shape[0]):
        x, y, ben = r.pairs[i, 0], r.pairs[i, 1], r.pairs[i, 2]
        if not (s.th_up[p, s.theme_at[x]] and s.th_up[p, s.theme_at[y]]):
            continue
        if ben == BEN_UNFLIP:
            for o in range(3):
                if not s.opp[p, o]:
                    n = _put(out, n, K_THEME_PAIR, i, o, 0)
        elif ben == BEN_BONUS:
            for b in range(r.books):
                if s.btiles_n[p, b] < r.max_tiles:
                    for slot in range(s.display.shape[0]):
                        if s.display[slot] >= 0:
                            n = _put(out, n, K_THEME_PAIR, i, slot, b)
        else:
            n = _put(out, n, K_THEME_PAIR, i, 0, 0)
    return n


@jit
def legal_moves(s, r, out):
    """Every legal decision of the seat to move into ``out`` (int64[max_moves, 4]), in the
    reference's order; returns their number (0 once the game is over)."""
    g = s.g
    p, ph = g[G_SEAT], g[G_PHASE]
    n = 0
    if ph == P_MAIN:
        n = _place_moves(s, r, out, 0)
        if n == 0:
            n = _put(out, 0, K_PASS, 0, 0, 0)
        return _theme_pair_moves(s, r, out, n)
    if ph == P_TRAVEL:
        budget = s.money[p] + r.travel_discount[s.imp[p, IMP_TRAVEL]] - g[G_T_COST]
        pos = s.pos[p]
        n = _put(out, 0, K_END, 0, 0, 0)
        if s.board[pos] >= 0 and budget >= r.pick_money:
            n = _put(out, n, K_PICK, 0, 0, 0)
        if budget >= r.step_money:
            for j in range(r.nbr_n[pos]):
                n = _put(out, n, K_STEP, r.nbr[pos, j], 0, 0)
        if s.opp[p, WANDERER]:
            for v in range(r.spaces):
                if v != pos:
                    n = _put(out, n, K_WANDER, v, 0, 0)
        return _theme_pair_moves(s, r, out, n)
    if ph == P_SKETCH:
        n = _put(out, 0, K_END, 0, 0, 0)
        h0 = h1 = h2 = h3 = 0
        for i in range(s.bp_n[p]):
            x = s.bp[p, i]
            if x == 0:
                h0 += 1
            elif x == 1:
                h1 += 1
            elif x == 2:
                h2 += 1
            else:
                h3 += 1
        eff_ready = s.opp[p, EFFICIENT]
        opts = np.empty((10, 5), np.int64)
        for b in range(r.books):
            if s.books_n[p, b] >= r.max_cards:
                continue
            if s.money[p] < r.extra_card_money[s.s_fee[b]]:
                continue
            d0, d1, d2, d3 = book_discounts(s, r, p, b)
            for i in range(s.hand_n[p]):
                c = s.hand[p, i]
                e0, e1, e2, e3 = card_need(r, c, d0, d1, d2, d3)
                if e0 <= h0 and e1 <= h1 and e2 <= h2 and e3 <= h3:
                    n = _put(out, n, K_SKETCH, c, b, -1)
                if eff_ready:
                    m = efficient_options(e0, e1, e2, e3, r.efficient, opts)
                    for j in range(m):
                        if opts[j, 1] <= h0 and opts[j, 2] <= h1 and opts[j, 3] <= h2 and opts[j, 4] <= h3:
                            n = _put(out, n, K_SKETCH, c, b, opts[j, 0])
        return _theme_pair_moves(s, r, out, n)
    if ph == P_FUNDING:
        k = s.th_up[p, s.theme_at[r.funding_space]]
        for i in range(k + 1):
            n = _put(out, n, K_FUND, i, 0, 0)
        return _theme_pair_moves(s, r, out, n)
    if ph == P_SUPPLY:
        n = _put(out, 0, K_END, 0, 0, 0)
        for res in range(4):
            if s.reserve[res] > 0:
                n = _put(out, n, K_RESOURCE, res, 0, 0)
        return _theme_pair_moves(s, r, out, n)
    if ph == P_RESOLVE:
        if g[G_P_XTHEME]:
            for i in range(g[G_X_N]):
                t = s.x_allowed[i]
                if s.theme_supply[t] > 0:
                    n = _put(out, n, K_EXTRA_THEME, t, 0, 0)
            return n
        if g[G_P_IMP]:
            n = _put(out, 0, K_IMPROVE_MONEY, 0, 0, 0)
            used = 0
            for t in range(5):
                if s.imp[p, t]:
                    used += 1
            room = used < r.slots
            for t in range(5):
                if s.imp[p, t] == 1:
                    n = _put(out, n, K_IMPROVE, t, 1, 0)
                elif s.imp[p, t] == 0 and room and s.imp_supply[t] > 0:
                    n = _put(out, n, K_IMPROVE, t, 0, 0)
                    if g[G_P_IMP] >= 2:
                        n = _put(out, n, K_IMPROVE, t, 2, 0)
            return n
        if g[G_P_UNFLIP]:
            for o in range(3):
                if not s.opp[p, o]:
                    n = _put(out, n, K_UNFLIP, o, 0, 0)
            return n
        if g[G_P_BONUS]:
            n = _put(out, 0, K_BONUS_MONEY, 0, 0, 0)
            for b in range(r.books):
                if s.btiles_n[p, b] < r.max_tiles:
                    for i in range(s.display.shape[0]):
                        if s.display[i] >= 0:
                            n = _put(out, n, K_BONUS, i, b, 0)
            return n
        return 0
    if ph == P_SETUP:
        n = _put(out, 0, K_SETUP_DONE, 0, 0, 0)
        for i in range(s.hand_n[p]):
            n = _put(out, n, K_SETUP_DISCARD, s.hand[p, i], 0, 0)
        return n
    return 0


# --------------------------------------------------------------------------------------------------
# transitions (rules.apply_move)


@jit
def _start_action(s, r, p, action, arg, value, rng):
    g = s.g
    g[G_ACTED] = 1
    s.st_actions[p, action] += 1
    if action == TRAVEL:
        g[G_PHASE] = P_TRAVEL
        g[G_T_COST] = 0
    elif action == SKETCH:
        g[G_PHASE] = P_SKETCH
        s.s_fee[:] = 0
        g[G_S_ICONS] = 0
        g[G_S_CARDS] = 0
    elif action == FUNDING:
        g[G_PHASE] = P_FUNDING
    elif action == PUBLISH:
        publish(s, r, p, arg)
        _continue(s, r, rng)
    else:
        g[G_SUP_LEFT] = abs(value - s.sup_tile[arg]) + r.supply_extra[s.imp[p, IMP_SUPPLY]]
        if g[G_SUP_LEFT]:
            g[G_PHASE] = P_SUPPLY
        else:
            _continue(s, r, rng)


@jit
def _refill_display(s, rng):
    _refill(s.display, s.bag, G_BAG_N, s.bdiscard, G_BDISC_N, s.g, rng)


@jit
def _bonus_taken(s, r, rng):
    s.g[G_P_BONUS] -= 1
    if not s.g[G_P_BONUS]:
        _refill_display(s, rng)
    _continue(s, r, rng)


@jit
def apply_move(s, r, kind, a, b, c, rng):
    """Play decision ``(kind, a, b, c)`` (legal) for the seat to move, in place; chance from ``rng``."""
    g = s.g
    p = g[G_SEAT]
    if kind == K_PLACE:
        action, arg = b // 8, b % 8
        s.dused[a] = 1
        col = s.dcol[a]
        s.st_colours[p, col] += 1
        if action == SUPPLY:
            s.sup_occ[arg] = 1
        else:
            s.occ[action, p] = 1
            cost, payee = place_cost(s, p, a, action)
            if col == WHITE:
                s.st[p, ST_WHITE] += 1
                if c:
                    s.opp[p, OPPORTUNIST] = 0
                    if payee >= 0:
                        s.money[payee] += cost
                else:
                    s.money[p] -= cost
                    if payee >= 0:
                        s.money[payee] += cost
                        s.st[p, ST_PAID_PLAYERS] += cost
                        s.st[payee, ST_RECEIVED] += cost
                    else:
                        s.st[p, ST_PAID_BANK] += cost
            else:
                s.cuser[action] = p
                s.cval[action] = s.dice[a]
        _start_action(s, r, p, action, arg, s.dice[a], rng)
    elif kind == K_STEP:
        g[G_T_COST] += r.step_money
        s.pos[p] = a
    elif kind == K_PICK:
        g[G_T_COST] += r.pick_money
        s.hand[p, s.hand_n[p]] = s.board[s.pos[p]]
        s.hand_n[p] += 1
        s.board[s.pos[p]] = -1
    elif kind == K_WANDER:
        s.opp[p, WANDERER] = 0
        s.pos[p] = a
    elif kind == K_END:
        if g[G_PHASE] == P_TRAVEL:
            pay = g[G_T_COST] - r.travel_discount[s.imp[p, IMP_TRAVEL]]
            if pay > 0:
                s.money[p] -= pay
                s.st[p, ST_PAID_BANK] += pay
            _refill(s.board, s.deck, G_DECK_N, s.discard, G_DISCARD_N, g, rng)
        elif g[G_PHASE] == P_SKETCH:
            if g[G_S_CARDS]:
                lvl = s.imp[p, IMP_SKETCH]
                base = max(g[G_S_ICONS], 1) if lvl else g[G_S_ICONS]
                if lvl == 2:
                    base += r.sketch_bonus[2]
                g[G_P_BONUS] += base
        else:
            g[G_SUP_LEFT] = 0
        _continue(s, r, rng)
    elif kind == K_SKETCH:
        d0, d1, d2, d3 = book_discounts(s, r, p, b)
        need = card_need(r, a, d0, d1, d2, d3)
        if c >= 0:
            s.opp[p, EFFICIENT] = 0
            need = efficient_need(r, need, c)
        _pay_resources(s, p, need)
        fee = r.extra_card_money[s.s_fee[b]]
        s.money[p] -= fee
        s.st[p, ST_PAID_BANK] += fee
        s.s_fee[b] += 1
        _hand_remove(s, p, a)
        s.books[p, b, s.books_n[p, b]] = a
        s.books_n[p, b] += 1
        g[G_S_ICONS] += r.bonus[a]
        g[G_S_CARDS] += 1
    elif kind == K_FUND:
        theme = s.theme_at[r.funding_space]
        pubs = g[G_TOTAL_PUB] if r.fund_all else s.pubs[p]
        lvl = s.imp[p, IMP_FUNDING]
        s.money[p] += r.fund_money + r.fund_per_pub * pubs + r.fund_flip * a + r.funding_extra[lvl]
        s.th_up[p, theme] -= a
        s.th_down[p, theme] += a
        g[G_P_BONUS] += r.funding_tiles[lvl]
        _continue(s, r, rng)
    elif kind == K_RESOURCE:
        gain_resource(s, r, p, a)
        g[G_SUP_LEFT] -= 1
        if not g[G_SUP_LEFT]:
            _continue(s, r, rng)
    elif kind == K_BONUS:
        tile = s.display[a]
        s.display[a] = -1
        s.btiles[p, b, s.btiles_n[p, b]] = tile
        s.btiles_n[p, b] += 1
        _bonus_taken(s, r, rng)
    elif kind == K_BONUS_MONEY:
        s.money[p] += r.bonus_money
        _bonus_taken(s, r, rng)
    elif kind == K_EXTRA_THEME:
        s.theme_supply[a] -= 1
        s.th_up[p, a] += 1
        g[G_P_XTHEME] -= 1
        _continue(s, r, rng)
    elif kind == K_IMPROVE:
        if b == 1:
            s.imp[p, a] = 2
            g[G_P_IMP] -= 1
        else:
            s.imp[p, a] = 1 if b == 0 else 2
            s.imp_supply[a] -= 1
            g[G_P_IMP] -= 1 if b == 0 else 2
        s.st_imp[p, a] = 1
        _continue(s, r, rng)
    elif kind == K_IMPROVE_MONEY:
        s.money[p] += r.improvement_money
        g[G_P_IMP] -= 1
        _continue(s, r, rng)
    elif kind == K_UNFLIP:
        s.opp[p, a] = 1
        g[G_P_UNFLIP] -= 1
        _continue(s, r, rng)
    elif kind == K_THEME_PAIR:
        ben = r.pairs[a, 2]
        for j in range(2):
            t = s.theme_at[r.pairs[a, j]]
            s.th_up[p, t] -= 1
            s.th_down[p, t] += 1
        if ben == BEN_UNFLIP:
            s.opp[p, b] = 1
        elif ben == BEN_BONUS:
            s.btiles[p, c, s.btiles_n[p, c]] = s.display[b]
            s.btiles_n[p, c] += 1
            s.display[b] = -1
            _refill_display(s, rng)
        else:
            advance_prestige(s, r, p, 1)
        if g[G_PHASE] == P_MAIN:
            _continue(s, r, rng)
    elif kind == K_PASS:
        _end_turn(s, r, rng)
    elif kind == K_SETUP_DISCARD:
        _hand_remove(s, p, a)
        s.discard[g[G_DISCARD_N]] = a
        g[G_DISCARD_N] += 1
        for res in range(4):
            for _ in range(r.cost[a, res]):
                if s.bp_n[p] < r.backpack and s.reserve[res] > 0:
                    s.bp[p, s.bp_n[p]] = res
                    s.bp_n[p] += 1
                    s.reserve[res] -= 1
    elif kind == K_SETUP_DONE:
        g[G_SETUP_SEAT] += 1
        if g[G_SETUP_SEAT] < r.n:
            g[G_SEAT] = g[G_SETUP_SEAT]
        else:
            g[G_FIRST] = r.first_player
            _start_round(s, r, rng)


# --------------------------------------------------------------------------------------------------
# the greedy agent (agents.py, same names, same arithmetic in the same order)


@jit
def book_value(s, r, w, p, b):
    nc = s.books_n[p, b]
    nt = s.btiles_n[p, b]
    if nc == 0:
        return w.bonus_tile * nt
    vp, money = book_money(s, r, p, b)
    icons = 0
    for i in range(nc):
        icons += r.themes_n[s.books[p, b, i]]
    streak = longest_streak(s, r, p, b)
    young = max(0.0, 1.0 - s.g[G_TOTAL_PUB] / r.end_total)
    return (w.book_fraction * (vp + w.money * money + w.theme_tile * icons + streak)
            + w.bonus_tile * nt + w.growth * young * (r.max_cards - nc))


@jit
def position_value(s, r, w, p):
    v = float(s.vp[p] + r.prestige_points[s.prestige[p]])
    v += w.money * s.money[p] + w.resource * s.bp_n[p]
    v += w.theme_tile * (s.th_up[p, 0] + s.th_up[p, 1] + s.th_up[p, 2] + s.th_up[p, 3]
                         + (s.th_down[p, 0] + s.th_down[p, 1] + s.th_down[p, 2] + s.th_down[p, 3]))
    v += w.opportunity * (s.opp[p, 0] + s.opp[p, 1] + s.opp[p, 2])
    for t in range(5):
        x = s.imp[p, t]
        if x:
            v += w.improvement + (w.advanced if x == 2 else 0.0)
    v += w.hand_card * min(s.hand_n[p], w.hand_cap)
    for b in range(r.books):
        v += book_value(s, r, w, p, b)
    return v


@jit
def travel_move(s, r, w, p):
    if s.hand_n[p] >= w.hand_cap:
        return K_END, 0, 0, 0
    budget = s.money[p] + r.travel_discount[s.imp[p, IMP_TRAVEL]] - s.g[G_T_COST]
    pos = s.pos[p]
    best, best_gain = -1, 0.0
    wander = s.opp[p, WANDERER] != 0
    disc = np.empty((r.books, 4), np.int64)
    for b in range(r.books):
        disc[b, 0], disc[b, 1], disc[b, 2], disc[b, 3] = book_discounts(s, r, p, b)
    k = 0.3 * w.resource
    for i in range(r.spaces):
        c = s.board[i]
        if c < 0:
            continue
        low = -1
        for b in range(r.books):
            need = 0
            for x in range(4):
                if r.cost[c, x] > disc[b, x]:
                    need += r.cost[c, x] - disc[b, x]
            if low < 0 or need < low:
                low = need
        value = w.card_base[c] - k * low
        d = r.dist[pos, i]
        steps = 0 if (wander and d >= 3) else d
        money = steps * r.step_money + r.pick_money
        if money > budget:
            continue
        gain = value - w.money * money - (w.opportunity if steps != d else 0.0)
        if gain > best_gain:
            best, best_gain = i, gain
    if best < 0:
        return K_END, 0, 0, 0
    if best == pos:
        return K_PICK, 0, 0, 0
    if wander and r.dist[pos, best] >= 3:
        return K_WANDER, best, 0, 0
    return K_STEP, r.next_step[pos, best], 0, 0


@jit
def supply_move(s, r, p):
    if s.bp_n[p] >= r.backpack:
        return K_END, 0, 0, 0
    w0 = w1 = w2 = w3 = 0
    d0, d1, d2, d3 = book_discounts(s, r, p, 0)
    for i in range(s.hand_n[p]):
        e0, e1, e2, e3 = card_need(r, s.hand[p, i], d0, d1, d2, d3)
        w0 += e0
        w1 += e1
        w2 += e2
        w3 += e3
    for i in range(s.bp_n[p]):
        x = s.bp[p, i]
        if x == 0:
            w0 -= 1
        elif x == 1:
            w1 -= 1
        elif x == 2:
            w2 -= 1
        else:
            w3 -= 1
    want = (w0, w1, w2, w3)
    best = -1
    for res in range(4):
        if s.reserve[res] > 0 and (best < 0 or want[res] > want[best]):
            best = res
    if best >= 0:
        return K_RESOURCE, best, 0, 0
    return K_END, 0, 0, 0


@jit
def _with_card(s, r, w, p, b, card):
    """book_value of sketchbook b with ``card`` added (the book is restored)."""
    s.books[p, b, s.books_n[p, b]] = card
    s.books_n[p, b] += 1
    v = book_value(s, r, w, p, b)
    s.books_n[p, b] -= 1
    return v


@jit
def _with_tile(s, r, w, p, b, tile):
    s.btiles[p, b, s.btiles_n[p, b]] = tile
    s.btiles_n[p, b] += 1
    v = book_value(s, r, w, p, b)
    s.btiles_n[p, b] -= 1
    return v


@jit
def _pair_value(s, r, w, p, a, b, c, base, rng):
    ben = r.pairs[a, 2]
    if ben == BEN_UNFLIP:
        return base + w.opportunity
    if ben == BEN_BONUS:
        before = book_value(s, r, w, p, c)
        tile = s.display[b]
        after = _with_tile(s, r, w, p, c, tile)
        s.display[b] = -1
        refill_display_draws(s, rng)
        s.display[b] = tile
        return base + after - before
    last = r.prestige_points.shape[0] - 1
    at = s.prestige[p]
    if at >= last:
        return base + w.money * r.prestige_overflow
    code = r.prestige_reward[at + 1]
    return (base + r.prestige_points[at + 1] - r.prestige_points[at]
            + (w.money * r.reward_money if code == R_MONEY else 0.0))


@jit
def quick_value(s, r, w, p, kind, a, b, c, base, rng):
    """agents.quick_value: (True, value) for the decisions it values without a copy (drawing
    from ``rng`` what a copy would), else (False, 0.0)."""
    g = s.g
    ph = g[G_PHASE]
    if kind == K_SKETCH and ph == P_SKETCH:
        d0, d1, d2, d3 = book_discounts(s, r, p, b)
        before = book_value(s, r, w, p, b)
        need = card_need(r, a, d0, d1, d2, d3)
        if c >= 0:
            need = efficient_need(r, need, c)
        h = s.hand_n[p]
        after = _with_card(s, r, w, p, b, a)
        return True, (base - w.resource * (need[0] + need[1] + need[2] + need[3])
                      - w.money * r.extra_card_money[s.s_fee[b]]
                      + w.hand_card * (min(h - 1, w.hand_cap) - min(h, w.hand_cap))
                      - (w.opportunity if c >= 0 else 0.0) + after - before)
    if kind == K_END and ph == P_SKETCH:
        return True, base
    if kind == K_BONUS and ph == P_RESOLVE:
        before = book_value(s, r, w, p, b)
        after = _with_tile(s, r, w, p, b, s.display[a])
        return True, base + after - before
    if kind == K_BONUS_MONEY and ph == P_RESOLVE:
        return True, base + w.money * r.bonus_money
    if kind == K_THEME_PAIR and ph != P_MAIN:
        return True, _pair_value(s, r, w, p, a, b, c, base, rng)
    if kind == K_FUND:
        lvl = s.imp[p, IMP_FUNDING]
        pubs = g[G_TOTAL_PUB] if r.fund_all else s.pubs[p]
        gain = r.fund_money + r.fund_per_pub * pubs + r.fund_flip * a + r.funding_extra[lvl]
        g[G_P_BONUS] += r.funding_tiles[lvl]
        continue_draws(s, r, rng)
        g[G_P_BONUS] -= r.funding_tiles[lvl]
        return True, base + w.money * gain
    if ph != P_RESOLVE:
        return False, 0.0
    if kind == K_UNFLIP:
        value = base + w.opportunity
        old = s.opp[p, a]
        g[G_P_UNFLIP] -= 1
        s.opp[p, a] = 1
        continue_draws(s, r, rng)
        g[G_P_UNFLIP] += 1
        s.opp[p, a] = old
        return True, value
    if kind == K_IMPROVE:
        value = base + (w.advanced if b == 1 else w.improvement + (w.advanced if b == 2 else 0.0))
        by = 2 if b == 2 else 1
        g[G_P_IMP] -= by
        continue_draws(s, r, rng)
        g[G_P_IMP] += by
        return True, value
    if kind == K_IMPROVE_MONEY:
        value = base + w.money * r.improvement_money
        g[G_P_IMP] -= 1
        continue_draws(s, r, rng)
        g[G_P_IMP] += 1
        return True, value
    if kind == K_EXTRA_THEME:
        value = base + w.theme_tile
        g[G_P_XTHEME] -= 1
        s.theme_supply[a] -= 1
        continue_draws(s, r, rng)
        g[G_P_XTHEME] += 1
        s.theme_supply[a] += 1
        return True, value
    return False, 0.0


@jit
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


@jit
def sub_move(s, r, w, rng, ws):
    """agents.sub_move: the greedy decision inside an action (uses ws.sub, ws.subvals, ws.b)."""
    p = s.g[G_SEAT]
    ph = s.g[G_PHASE]
    if ph == P_TRAVEL:
        return travel_move(s, r, w, p)
    if ph == P_SUPPLY:
        return supply_move(s, r, p)
    moves = ws.sub
    m = legal_moves(s, r, moves)
    if m == 1:
        return moves[0, 0], moves[0, 1], moves[0, 2], moves[0, 3]
    base = position_value(s, r, w, p) if (ph == P_SKETCH or ph == P_RESOLVE or ph == P_FUNDING) else 0.0
    values = ws.subvals
    for i in range(m):
        ok, v = quick_value(s, r, w, p, moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3], base, rng)
        if not ok:
            c = ws.b
            copy_state(c, s)
            apply_move(c, r, moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3], rng)
            v = position_value(c, r, w, p)
        values[i] = v
    return pick_best(moves, values, m, rng)


@jit
def candidate_moves(s, r, out, tmp, keys):
    """agents.candidate_moves into ``out``; returns their number (``tmp``: the legal moves)."""
    m = legal_moves(s, r, tmp)
    keys[:] = -1
    p = s.g[G_SEAT]
    nk = 0
    for i in range(m):
        if tmp[i, 0] != K_PLACE:
            continue
        action = tmp[i, 2] >> 3
        if action == SUPPLY:
            key = 80
            score = -abs(s.dice[tmp[i, 1]] - s.sup_tile[tmp[i, 2] & 7])
        else:
            key = tmp[i, 2] * 2 + tmp[i, 3]
            score = place_cost(s, p, tmp[i, 1], action)[0] if not tmp[i, 3] else 0
        slot = keys[key]
        if slot < 0:
            keys[key] = nk
            out[nk, 0], out[nk, 1], out[nk, 2], out[nk, 3] = score, i, 0, 0
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


@jit
def finish_turn(s, r, w, p, rng, ws):
    g = s.g
    while g[G_PHASE] != P_OVER and g[G_SEAT] == p and g[G_PHASE] != P_MAIN:
        k, a, b, c = sub_move(s, r, w, rng, ws)
        apply_move(s, r, k, a, b, c, rng)


@jit
def main_move(s, r, w, rng, ws):
    """agents.main_move: the greedy choice of a die (or theme-tile pair), one action ahead."""
    p = s.g[G_SEAT]
    moves = ws.cand
    m = candidate_moves(s, r, moves, ws.tmp, ws.keys)
    if m == 1:
        return moves[0, 0], moves[0, 1], moves[0, 2], moves[0, 3]
    values = ws.vals
    c = ws.a
    for i in range(m):
        copy_state(c, s)
        apply_move(c, r, moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3], rng)
        finish_turn(c, r, w, p, rng, ws)
        values[i] = position_value(c, r, w, p)
    return pick_best(moves, values, m, rng)


@jit
def random_move(s, r, rng, ws):
    m = legal_moves(s, r, ws.sub)
    i = rng.integers(0, m)
    return ws.sub[i, 0], ws.sub[i, 1], ws.sub[i, 2], ws.sub[i, 3]


@jit
def choose(s, r, w, kind, rng, ws):
    """The decision of agent ``kind`` (:data:`AGENT_KINDS`) for the seat to move."""
    if kind == 0:
        return random_move(s, r, rng, ws)
    if s.g[G_PHASE] == P_MAIN:
        return main_move(s, r, w, rng, ws)
    return sub_move(s, r, w, rng, ws)


@jit
def play(s, r, w, kinds, game_rng, agent_rng, ws, record):
    """Play ``s`` to the end, seat i's decisions by agent ``kinds[i]``; the first ``len(record)``
    decisions are written to ``record`` (int64[k, 4]). Returns the number of decisions."""
    count = 0
    while s.g[G_PHASE] != P_OVER:
        k, a, b, c = choose(s, r, w, kinds[s.g[G_SEAT]], agent_rng, ws)
        if count < record.shape[0]:
            record[count, 0], record[count, 1], record[count, 2], record[count, 3] = k, a, b, c
        count += 1
        apply_move(s, r, k, a, b, c, game_rng)
    return count
