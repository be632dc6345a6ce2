"""Urban Sketchers' reference agents on the readable engine (:mod:`.rules`), the tests' oracle of the
compiled ones (``balancer.games.urban_sketchers.fast``, ``agents``): ``random``, ``greedy`` and
``rollout`` on a reference :class:`.rules.State` (:func:`make`), and :class:`OnReference`, which
seats one at the protocol (on the reference state equal to the compiled one).

- ``random``: uniform over :func:`.rules.legal_moves` at every decision, with one ``rng.random()``
  (die placements and every decision inside an action alike).
- ``greedy``: one action ahead. At the choice of a die (and of a theme-tile pair) it tries every
  choice of :func:`candidate_moves` (per action only the cheapest die) on a copy of the state, finishes the action with its own sub-decisions, and keeps the
  choice whose resulting position has the highest :func:`position_value` for its seat (exact ties
  broken uniformly at random with the agent's generator, :func:`pick_best`). Inside an action:

  * Travel: heads for the board card of highest :func:`card_value` minus the money to reach and
    pick it (shortest path; the Wanderer tile when the card is ``wander_steps`` or more steps away), picks it when
    there, ends when no card is worth its cost or the money runs out;
  * Supply: takes the resource type its hand lacks most (the hand's costs after discounts against
    the Backpack), stops when the Backpack is full;
  * every other decision (cards to sketch, in which sketchbook and order, Efficient, bonus tiles,
    funding flips, improvements, unflips, extra themes, Set Up discards): the move whose resulting
    position has the highest value, one decision ahead; exact ties broken uniformly at random.

:func:`position_value` (points; weights in ``agents.greedy`` of the YAML): victory points, the
Prestige space's points, money x ``money``, resources x ``resource``, theme tiles x ``theme_tile``,
opportunity tiles face up x ``opportunity``, improvements x ``improvement`` (+ ``advanced`` each
advanced side), cards in hand x ``hand_card`` up to ``hand_cap``, and per sketchbook in progress
``book_fraction`` x what publishing it now would give (points, money, theme tiles, Prestige) plus
``bonus_tile`` per bonus tile plus ``growth`` per free card space while the game is young (scaled by
the share of the end-game total not yet published).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from balancer.games.urban_sketchers import fast, kernel
from balancer.games.urban_sketchers.agents import AGENTS, SEARCH_AGENTS
from balancer.games.urban_sketchers.config import UrbanSketchersConfig

from .bridge import from_buffer, load, to_reference
from .rules import (
    BEN_BONUS,
    BEN_UNFLIP,
    IMP_FUNDING,
    IMP_TRAVEL,
    K_BONUS,
    K_BONUS_MONEY,
    K_END,
    K_EXTRA_THEME,
    K_FUND,
    K_IMPROVE,
    K_IMPROVE_MONEY,
    K_PICK,
    K_PLACE,
    K_RESOURCE,
    K_SKETCH,
    K_STEP,
    K_THEME_PAIR,
    K_UNFLIP,
    K_WANDER,
    P_FUNDING,
    P_MAIN,
    P_OVER,
    P_RESOLVE,
    P_SKETCH,
    P_SUPPLY,
    P_TRAVEL,
    R_MONEY,
    SUPPLY,
    WANDERER,
    Rules,
    State,
    apply_move,
    book_discounts,
    book_money,
    card_need,
    continue_draws,
    efficient_options,
    legal_moves,
    longest_streak,
    place_cost,
    refill_display_draws,
)
from .scoring import final_components


class Weights:
    """The greedy weights as plain floats (read once from the config), and per-variant tables the
    hot paths use (:meth:`tables`)."""

    FIELDS = (
        "money",
        "resource",
        "hand_card",
        "hand_cap",
        "book_fraction",
        "growth",
        "theme_tile",
        "opportunity",
        "improvement",
        "advanced",
        "bonus_tile",
        "card_bonus_icon",
        "card_theme_icon",
        "card_cost_share",
        "wander_steps",
    )
    __slots__ = (*FIELDS, "_rules", "_card_base", "_books", "_by_discounts")
    # the slots' types (annotations only; config.Greedy's fields, in points unless said)
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
    card_bonus_icon: float
    card_theme_icon: float
    card_cost_share: float
    wander_steps: int
    _rules: Rules | None
    _card_base: tuple[float, ...]
    _books: dict[tuple[int, ...], float]
    _by_discounts: dict[tuple[int, ...], tuple[float, ...]]

    def __init__(self, cfg: UrbanSketchersConfig):
        g = cfg.agents.greedy
        for name in self.FIELDS:
            setattr(self, name, getattr(g, name))
        self._rules = None

    def tables(self, r: Rules) -> tuple[tuple[float, ...], dict]:
        """For the variant ``r``: each card's :func:`card_value` before its resource cost, by card
        id, and the cache of :func:`book_value`, by (total published, cards, tiles); also the
        cache of :func:`board_values` by discounts. Rebuilt when the variant changes."""
        if r is not self._rules:
            self._rules = r
            self._card_base = tuple(
                self.hand_card + self.card_bonus_icon * r.bonus[c] + self.card_theme_icon * len(r.themes[c])
                for c in range(r.n_cards)
            )
            self._books = {}
            self._by_discounts = {}
        return self._card_base, self._books


def book_value(s: State, p: int, b: int, w: Weights) -> float:
    """What publishing sketchbook b would give now, in points (victory points, money, theme tiles,
    Prestige spaces at 1 point each). Cached in :meth:`Weights.tables` by the total published,
    the cards and the tiles, all it depends on."""
    r = s.rules
    cards, tiles = s.books[p][b], s.btiles[p][b]
    if not cards:
        return w.bonus_tile * len(tiles)
    books = w._books if r is w._rules else w.tables(r)[1]
    key = (s.total_pub, *cards, -1, *tiles)
    value = books.get(key)
    if value is None:
        vp, money = book_money(r, cards, tiles)
        icons = sum(len(r.themes[c]) for c in cards)
        streak = longest_streak(r, cards, tiles)
        young = max(0.0, 1.0 - s.total_pub / r.end_total)
        if len(books) >= 1 << 17:
            books.clear()
        value = books[key] = (
            w.book_fraction * (vp + w.money * money + w.theme_tile * icons + streak)
            + w.bonus_tile * len(tiles)
            + w.growth * young * (r.max_cards - len(cards))
        )
    return value


def position_value(s: State, p: int, w: Weights) -> float:
    """The greedy heuristic value of seat p's holdings, in points (see the module docstring)."""
    r = s.rules
    v: float = s.vp[p] + r.prestige_points[s.prestige[p]]
    v += w.money * s.money[p] + w.resource * len(s.bp[p])
    v += w.theme_tile * (sum(s.th_up[p]) + sum(s.th_down[p]))
    v += w.opportunity * sum(s.opp[p])
    for x in s.imp[p]:
        if x:
            v += w.improvement + (w.advanced if x == 2 else 0.0)
    v += w.hand_card * min(len(s.hand[p]), w.hand_cap)
    for b in range(r.books):
        v += book_value(s, p, b, w)
    return v


def card_value(s: State, p: int, card: int, w: Weights, discounts: list[list[int]] | None = None) -> float:
    """A board card's worth to p in points: a hand card's value less the resources it will cost in
    p's best sketchbook (after its discounts, ``discounts[b]`` if given); nothing once the hand
    holds ``hand_cap`` cards. The readable version of :func:`board_values`."""
    if len(s.hand[p]) >= w.hand_cap:
        return 0.0
    r = s.rules
    if discounts is None:
        discounts = [book_discounts(s, p, b) for b in range(r.books)]
    best = min(sum(card_need(r, card, d)) for d in discounts)
    return (
        w.hand_card
        + w.card_bonus_icon * r.bonus[card]
        + w.card_theme_icon * len(r.themes[card])
        - w.card_cost_share * w.resource * best
    )


def board_values(s: State, p: int, w: Weights) -> list[float | None]:
    """:func:`card_value` of the card on each travel-board space (None for an empty space), from
    tables by card id cached per sketchbook discounts in :meth:`Weights.tables`; the same floats
    (tests check it)."""
    r = s.rules
    if len(s.hand[p]) >= w.hand_cap:
        return [None if c < 0 else 0.0 for c in s.board]
    discounts = [book_discounts(s, p, b) for b in range(r.books)]
    key = tuple(x for d in discounts for x in d)
    by_card = w._by_discounts.get(key) if r is w._rules else None
    if by_card is None:
        card_base = w.tables(r)[0]
        k = w.card_cost_share * w.resource
        values = []
        for c, (c0, c1, c2, c3) in enumerate(r.cost):
            best = -1
            for d0, d1, d2, d3 in discounts:
                need = (
                    (c0 - d0 if c0 > d0 else 0)
                    + (c1 - d1 if c1 > d1 else 0)
                    + (c2 - d2 if c2 > d2 else 0)
                    + (c3 - d3 if c3 > d3 else 0)
                )
                if best < 0 or need < best:
                    best = need
            values.append(card_base[c] - k * best)
        by_card = w._by_discounts[key] = tuple(values)
    return [None if c < 0 else by_card[c] for c in s.board]


def travel_move(s: State, p: int, w: Weights) -> tuple[int, int, int, int]:
    """The greedy Travel decision (module docstring)."""
    r = s.rules
    if len(s.hand[p]) >= w.hand_cap:
        return (K_END, 0, 0, 0)
    budget = s.money[p] + r.travel_discount[s.imp[p][IMP_TRAVEL]] - s.t_cost
    pos = s.pos[p]
    best, best_gain = -1, 0.0
    wander = bool(s.opp[p][WANDERER])
    dist, step_money, pick_money, w_money = r.dist[pos], r.step_money, r.pick_money, w.money
    for i, value in enumerate(board_values(s, p, w)):
        if value is None:
            continue
        d = dist[i]
        steps = 0 if (wander and d >= w.wander_steps) else d
        money = steps * step_money + pick_money
        if money > budget:
            continue
        gain = value - w_money * money - (w.opportunity if steps != d else 0.0)
        if gain > best_gain:
            best, best_gain = i, gain
    if best < 0:
        return (K_END, 0, 0, 0)
    if best == pos:
        return (K_PICK, 0, 0, 0)
    if wander and dist[best] >= w.wander_steps:
        return (K_WANDER, best, 0, 0)
    return (K_STEP, r.next_step[pos][best], 0, 0)


def supply_move(s: State, p: int) -> tuple[int, int, int, int]:
    """The greedy Supply decision: the type the hand lacks most (ties: lowest type), or stop."""
    r = s.rules
    if len(s.bp[p]) >= r.backpack:
        return (K_END, 0, 0, 0)
    want = [0, 0, 0, 0]
    for c in s.hand[p]:
        need = card_need(r, c, book_discounts(s, p, 0))
        for i in range(4):
            want[i] += need[i]
    for res in s.bp[p]:
        want[res] -= 1
    best = -1
    for res in range(4):
        if s.reserve[res] > 0 and (best < 0 or want[res] > want[best]):
            best = res
    return (K_RESOURCE, best, 0, 0) if best >= 0 else (K_END, 0, 0, 0)


def sub_move(s: State, w: Weights, scratch: np.random.Generator) -> tuple[int, int, int, int]:
    """The greedy decision inside an action (any phase but choosing a die)."""
    p = s.seat
    if s.phase == P_TRAVEL:
        return travel_move(s, p, w)
    if s.phase == P_SUPPLY:
        return supply_move(s, p)
    moves = legal_moves(s)
    if len(moves) == 1:
        return moves[0]
    values = []
    base = position_value(s, p, w) if s.phase in (P_SKETCH, P_RESOLVE, P_FUNDING) else 0.0
    memo: dict = {}
    for mv in moves:
        v = quick_value(s, p, mv, w, base, scratch, memo)
        if v is None:
            c = s.clone(scratch, stats=False, seat=p)
            apply_move(c, mv)
            v = position_value(c, p, w)
        values.append(v)
    return pick_best(moves, values, scratch)


TIE = 1e-9
"""Values closer than this are a tie (sums of the same terms in another order differ by rounding)."""


def pick_best(moves: list, values: list[float], rng: np.random.Generator):
    """The move of highest value; exact ties (within :data:`TIE`) broken uniformly with ``rng``."""
    top = max(values)
    best = [mv for mv, v in zip(moves, values) if v >= top - TIE]
    return best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]


def quick_value(
    s: State,
    p: int,
    mv: tuple[int, int, int, int],
    w: Weights,
    base: float,
    rng: np.random.Generator | None = None,
    memo: dict | None = None,
) -> float | None:
    """:func:`position_value` after ``mv`` without copying the state, given ``base``, the value
    before the move: the decisions inside Sketch (a card, or ending), bonus tiles, theme-tile pairs
    during an action, Funding and the pending choices (improvements, unflips, extra themes); None
    for other moves. The same value as applying the move to a copy (tests check it). With ``rng``,
    it also draws from ``rng`` what a copy given ``rng`` would draw applying the move (the next
    round's dice, a reshuffle of the bonus tiles), so that the agent's later choices stay the
    same; Sketch and bonus-tile decisions draw nothing (the greedy agent never copied for them).
    ``memo``, an empty dict shared by the calls for one position, keeps per-sketchbook parts
    (keys b: Sketch's discounts and value; -1 - b: the value for theme-pair bonus tiles)."""
    kind = mv[0]
    r = s.rules
    if kind == K_SKETCH and s.phase == P_SKETCH:
        card, b, eff = mv[1], mv[2], mv[3]
        known = memo.get(b) if memo is not None else None
        if known is None:
            known = (book_discounts(s, p, b), book_value(s, p, b, w))
            if memo is not None:
                memo[b] = known
        disc, before = known
        need = card_need(r, card, disc)
        if eff >= 0:
            need = next(less for code, less in efficient_options(need, r.efficient) if code == eff)
        h = len(s.hand[p])
        book = s.books[p][b]
        book.append(card)
        after = book_value(s, p, b, w)
        book.pop()
        return (
            base
            - w.resource * sum(need)
            - w.money * r.extra_card_money[s.s_fee[b]]
            + w.hand_card * (min(h - 1, w.hand_cap) - min(h, w.hand_cap))
            - (w.opportunity if eff >= 0 else 0.0)
            + after
            - before
        )
    if kind == K_END and s.phase == P_SKETCH:
        return base
    if kind == K_BONUS and s.phase == P_RESOLVE:
        tiles = s.btiles[p][mv[2]]
        before = book_value(s, p, mv[2], w)
        tiles.append(s.display[mv[1]])
        after = book_value(s, p, mv[2], w)
        tiles.pop()
        return base + after - before
    if kind == K_BONUS_MONEY and s.phase == P_RESOLVE:
        return base + w.money * r.bonus_money
    if kind == K_THEME_PAIR and s.phase != P_MAIN:
        return _pair_value(s, p, mv, w, base, rng, memo)
    if kind == K_FUND:
        lvl = s.imp[p][IMP_FUNDING]
        pubs = s.total_pub if r.fund_all else s.pubs[p]
        gain = r.fund_money + r.fund_per_pub * pubs + r.fund_flip * mv[1] + r.funding_extra[lvl]
        if rng is not None:
            s.p_bonus += r.funding_tiles[lvl]
            continue_draws(s, rng)
            s.p_bonus -= r.funding_tiles[lvl]
        return base + w.money * gain
    if s.phase != P_RESOLVE:
        return None
    if kind == K_UNFLIP:
        value = base + w.opportunity
        undo = _try(s, "p_unflip", -1, s.opp[p], mv[1], 1)
    elif kind == K_IMPROVE:
        mode = mv[2]
        value = base + (w.advanced if mode == 1 else w.improvement + (w.advanced if mode == 2 else 0.0))
        undo = _try(s, "p_imp", -2 if mode == 2 else -1, None, 0, 0)
    elif kind == K_IMPROVE_MONEY:
        value = base + w.money * r.improvement_money
        undo = _try(s, "p_imp", -1, None, 0, 0)
    elif kind == K_EXTRA_THEME:
        value = base + w.theme_tile
        undo = _try(s, "p_xtheme", -1, s.theme_supply, mv[1], s.theme_supply[mv[1]] - 1)
    else:
        return None
    if rng is not None:
        continue_draws(s, rng)
    undo()
    return value


def _try(s: State, pending: str, by: int, where: list[int] | None, i: int, value: int):
    """Change the pending-choice counter ``pending`` by ``by`` and set ``where[i] = value`` (the parts
    of a decision :func:`.rules.continue_draws` reads); returns the function that undoes both."""
    setattr(s, pending, getattr(s, pending) + by)
    old = where[i] if where is not None else 0
    if where is not None:
        where[i] = value

    def undo() -> None:
        setattr(s, pending, getattr(s, pending) - by)
        if where is not None:
            where[i] = old

    return undo


def _pair_value(
    s: State,
    p: int,
    mv: tuple[int, int, int, int],
    w: Weights,
    base: float,
    rng: np.random.Generator | None,
    memo: dict | None,
) -> float:
    """:func:`quick_value` of a theme-tile pair flipped during an action (no :func:`.rules._continue`
    then): the flips keep the theme-tile count; the benefit adds its own value."""
    r = s.rules
    ben = r.pairs[mv[1]][2]
    if ben == BEN_UNFLIP:
        return base + w.opportunity
    if ben == BEN_BONUS:
        slot, b = mv[2], mv[3]
        if slot < 0:  # money instead of the tile; the display is refilled all the same
            if rng is not None:
                refill_display_draws(s, rng)
            return base + w.money * r.bonus_money
        tiles = s.btiles[p][b]
        before = memo.get(-1 - b) if memo is not None else None
        if before is None:
            before = book_value(s, p, b, w)
            if memo is not None:
                memo[-1 - b] = before
        tile = s.display[slot]
        tiles.append(tile)
        after = book_value(s, p, b, w)
        tiles.pop()
        if rng is not None:
            s.display[slot] = -1
            refill_display_draws(s, rng)
            s.display[slot] = tile
        return base + after - before
    last = len(r.prestige_points) - 1
    at = s.prestige[p]
    if at >= last:
        return base + w.money * r.prestige_overflow
    code = r.prestige_reward[at + 1]
    return (
        base
        + r.prestige_points[at + 1]
        - r.prestige_points[at]
        + (w.money * r.reward_money if code == R_MONEY else 0.0)
    )


def finish_turn(s: State, p: int, w: Weights, scratch: np.random.Generator) -> None:
    """Play p's greedy sub-decisions until p's action is done (the turn ends, or p is back to choosing a die)."""
    while s.phase != P_OVER and s.seat == p and s.phase != P_MAIN:
        apply_move(s, sub_move(s, w, scratch))


def candidate_moves(s: State) -> list[tuple[int, int, int, int]]:
    """The legal die choices the greedy agent compares: per colour action (and sketchbook to
    publish) the cheapest die, with and without Opportunist; for Supply the die and space that give
    the most resources (ties: the first in :func:`legal_moves` order); every theme-tile pair; a pass.
    A costlier die for the same action reaches the same positions with less money, and fewer
    resources are never worth more to it, so these are the only ones that can be best for the
    agent's own value (it does not weigh denying dice or spaces to others)."""
    best: dict[tuple[int, int], tuple[int, tuple[int, int, int, int]]] = {}
    out = []
    for mv in legal_moves(s):
        if mv[0] != K_PLACE:
            out.append(mv)
            continue
        action = mv[2] >> 3
        if action == SUPPLY:
            key = (SUPPLY * 8, 0)
            score = -abs(s.dice[mv[1]] - s.sup_tile[mv[2] & 7])
        else:
            key = (mv[2], mv[3])
            score = place_cost(s, s.seat, mv[1], action)[0] if not mv[3] else 0
        old = best.get(key)
        if old is None or score < old[0]:
            best[key] = (score, mv)
    return [mv for _, mv in best.values()] + out


def main_move(s: State, w: Weights, scratch: np.random.Generator) -> tuple[int, int, int, int]:
    """The greedy choice of a die and action (or a theme-tile pair): one action ahead, over
    :func:`candidate_moves`."""
    p = s.seat
    moves = candidate_moves(s)
    if len(moves) == 1:
        return moves[0]
    values = []
    for mv in moves:
        c = s.clone(scratch, stats=False, seat=p)
        apply_move(c, mv)
        finish_turn(c, p, w, scratch)
        values.append(position_value(c, p, w))
    return pick_best(moves, values, scratch)


class RandomAgent:
    """Uniform over the legal decisions, with one ``rng.random()`` (the draw of the interface's
    ``random`` agent, ``core.protocol.UniformAgent``)."""

    name = "random"

    def choose(self, s: State, seat: int, rng: np.random.Generator) -> tuple[int, int, int, int]:
        moves = legal_moves(s)
        return moves[min(int(rng.random() * len(moves)), len(moves) - 1)]


class GreedyAgent:
    """One action ahead with :func:`position_value` (module docstring). Its look-ahead copies draw
    their chance (card and tile refills, the next round's dice) from the agent's generator."""

    name = "greedy"

    def __init__(self, cfg: UrbanSketchersConfig):
        self.w = Weights(cfg)

    def choose(self, s: State, seat: int, rng: np.random.Generator) -> tuple[int, int, int, int]:
        if s.phase == P_MAIN:
            return main_move(s, self.w, rng)
        return sub_move(s, self.w, rng)


def playout(s: State, w: Weights, rng: np.random.Generator, horizon: int) -> None:
    """Play greedy decisions for every seat until the game ends, or until ``horizon`` rounds have
    been started after the current one (0: to the end)."""
    stop = s.round + horizon if horizon else 1 << 30
    while s.phase != P_OVER and s.round < stop:
        apply_move(s, main_move(s, w, rng) if s.phase == P_MAIN else sub_move(s, w, rng))


def margin(s: State, p: int, w: Weights) -> float:
    """p's lead over the best other seat: final scores once the game is over, else position values."""
    if s.phase == P_OVER:
        comps = final_components(s)
        scores: list[float] = [sum(v[q] for v in comps.values()) for q in range(s.rules.n)]
    else:
        scores = [position_value(s, q, w) for q in range(s.rules.n)]
    return scores[p] - max(scores[q] for q in range(s.rules.n) if q != p)


class RolloutAgent:
    """Flat Monte Carlo over the greedy policy: at each choice of a die, the ``candidates`` best
    choices by the greedy value each get ``playouts`` playouts (every seat greedy), to the end of the
    game or ``horizon_rounds`` rounds on; the choice with the best mean :func:`margin` is played
    (ties: the greedy order). Decisions inside an action are greedy. Parameters in ``agents.rollout``.

    Each playout starts from the position determinized for the agent's seat with the agent's
    generator (the kernel's ``determinize``: the other seats' face-down cards dealt again from the
    cards the seat has not seen, the deck and the bonus bag reshuffled), so that the agent never
    reads what its seat cannot see. What is face down is recorded only in the compiled position:
    :meth:`choose` on a reference state reads it from :func:`.bridge.load` (face-down hands during Set
    Up only); the Python protocol (:class:`OnReference`) passes the position itself.

    The playouts run on the compiled engine (:func:`.fast.playout`, the same decisions and draws
    as :func:`playout`); ``compiled=False`` plays them on the reference engine."""

    name = "rollout"

    def __init__(self, cfg: UrbanSketchersConfig, compiled: bool = True):
        self.cfg = cfg
        self.w = Weights(cfg)
        ro = cfg.agents.rollout
        self.playouts, self.candidates, self.horizon = ro.playouts, ro.candidates, ro.horizon_rounds
        self.compiled = compiled
        self._fast: tuple | None = None

    def _play_out(self, c: State, rng: np.random.Generator) -> State:
        """``c`` played on by :func:`playout` (on the compiled engine unless ``compiled`` is off)."""
        if not self.compiled:
            playout(c, self.w, rng, self.horizon)
            return c
        if self._fast is None or self._fast[0] is not c.rules:
            lay, table = fast.compile_fast(c.rules)
            self._fast = (c.rules, lay, table, fast.fast_weights(self.cfg, c.rules), fast.workspace(lay))
        _, lay, table, weights, ws = self._fast
        buf = load(c)
        fast.playout(buf, lay, table, weights, rng, ws, c.round + self.horizon if self.horizon else 1 << 30)
        return from_buffer(buf, c.rules, rng)

    def choose(
        self, s: State, seat: int, rng: np.random.Generator, position: tuple[np.ndarray, Any] | None = None
    ) -> tuple[int, int, int, int]:
        """The decision for ``seat`` in ``s``; ``position``: the compiled ``(S, T)`` that ``s`` was
        read from (its record of the face-down cards), None to load ``s``."""
        w = self.w
        if s.phase != P_MAIN:
            return sub_move(s, w, rng)
        moves = candidate_moves(s)
        if len(moves) == 1:
            return moves[0]
        ranked = []
        for i, mv in enumerate(moves):
            c = s.clone(rng, stats=False, seat=seat)
            apply_move(c, mv)
            finish_turn(c, seat, w, rng)
            ranked.append((-position_value(c, seat, w), i, mv))
        ranked.sort()
        if position is None:
            S, T = load(s), kernel.compile(self.cfg, s.rules.n)
        else:
            S, T = position
        best, best_v = ranked[0][2], -1e18
        for _, _, mv in ranked[: self.candidates]:
            total = 0.0
            for _ in range(self.playouts):
                W = S.copy()
                kernel.determinize(W, T, seat, rng)
                c = from_buffer(W, s.rules, rng)
                apply_move(c, mv)
                total += margin(self._play_out(c, rng), seat, w)
            if total / self.playouts > best_v:
                best, best_v = mv, total / self.playouts
        return best


def make(cfg: UrbanSketchersConfig, name: str) -> RandomAgent | GreedyAgent | RolloutAgent:
    """A reference agent by name (its ``choose`` takes a reference :class:`.rules.State` and returns
    a decision ``(kind, a, b, c)``); ValueError for an unknown name."""
    if name == "random":
        return RandomAgent()
    if name == "greedy":
        return GreedyAgent(cfg)
    if name == "rollout":
        return RolloutAgent(cfg)
    raise ValueError(f"unknown agent {name!r} for urban_sketchers; known: {', '.join(AGENTS + SEARCH_AGENTS)}")


class OnReference:
    """A reference agent (``choose(State, seat, rng, position) -> (kind, a, b, c)``) seated at the
    protocol: it decides on the reference state equal to the compiled one (given the compiled
    ``(S, T)`` too: what is face down is recorded only there) and returns the decision's code."""

    def __init__(self, agent: RolloutAgent):
        self.agent = agent
        self.name = agent.name

    def choose(self, pos, seat: int, rng: np.random.Generator) -> int:
        return kernel.encode_move(self.agent.choose(to_reference(pos.S, pos.T), seat, rng, (pos.S, pos.T)))
