"""Ratings of agents on one strength scale, from the games they played against each other.

* **Bradley-Terry** (two players): agent *i* beats agent *j* with probability
  ``p_i / (p_i + p_j)``; fitted with ``choix.ilsr_pairwise_dense`` on the matrix of (fractional)
  wins, a draw counting one half for each side.
* **Plackett-Luce** (rankings of *n* players): a game's finishing order is drawn winner first, each
  place going to one of the players still unplaced with probability proportional to its strength
  ``p_i``. An agent may sit at a table more than once (one agent of a rung against *n - 1* of
  another): the copies share one strength, which is the same model with every copy a player of its
  own. Fitted by choix's algorithm (I-LSR, Maystre & Grossglauser 2015, the fixed point of which is
  the maximum-likelihood estimate) over the distinct finishing orders with their counts, because
  ``choix.ilsr_rankings`` takes one list entry per game and is too slow for a bootstrap of tens of
  thousands of games; the stationary distribution is choix's own ``statdist``, and a test checks
  that the result equals ``choix.ilsr_rankings`` on the expanded games.

Ratings are log-strengths ``theta_i = ln p_i`` anchored at the first item (``theta_0 = 0``): the
difference of two ratings is the log-odds of one beating the other head to head.

**The data.** A game is an *outcome*: a list of ``(order, weight)`` with the items (agents) from
first to last place and weights summing to 1. A game without ties has one order of weight 1; tied
places are spread equally over the distinct orders of the tied group (the average over tie-breaks,
so a 2-player draw is half a win each). :class:`RatingData` keeps the distinct outcomes and, per
*cell* (a table of fixed agents), the outcome of each game, so that a bootstrap can resample games.

**Shrinkage.** A rung that never lost (greedy against random can win every game) has no finite
maximum-likelihood rating. Every cell therefore adds one pseudo-game in which all its players tie
(weight 1, spread over the distinct orders of its table): a pull towards equal strength worth one
game per cell, which keeps every rating finite and moves a rating by about 1/games (a cell of
2,000 games won 1,500 to 500 gives ``ln(1500.5 / 500.5) = 1.0979`` instead of ``ln 3 = 1.0986``).

**Intervals.** Bootstrap over games: each replicate redraws every cell's games with replacement
(the cell's size kept, its pseudo-game kept), refits, and the 95% interval is the 2.5 and 97.5
percentiles of the replicates (percentile bootstrap; Efron & Tibshirani 1993, ch. 13). Cells of one
size redraw the *same* game indices: every cell of a ladder is played with the study seed, so game
i of one cell and game i of another share their deal, and resampling deals (not each cell's games
on their own) keeps that pairing in every replicate. Two-player replicates are fitted all at once by
Newton's method (:func:`bradley_terry_batch`, the same maximum as choix's to 1e-12).

**A bound per match-up** (issue 51). Every rung plays the bottom rung (item 0, whose rating is 0 by
definition), and that match-up alone gives an exact interval of theta_i (:func:`matchup_interval`):
with a copies of i and b of item 0 at the table, the probability that a copy of i finishes first is
q = a p_i / (a p_i + b p_0), so theta_i = logit(q) + ln(b / a), and q's Clopper-Pearson interval maps
to an interval of theta_i that covers at least ``confidence`` whatever the strengths. A rung's
interval is the smallest holding both its bootstrap interval and that exact one, so it covers at
least as often as the exact one (the bootstrap alone covered 89 to 95% on synthetic ladders of 3 to 5
rungs). When a copy of i finished first in every one of the G games of that match-up (greedy against
random), every bootstrap replicate of the match-up is the same and the bootstrap's interval collapses
on the point the pseudo-game sets, below the truth (0% coverage at a true 6.5 when greedy also loses
to a third rung): the rung then gets that match-up's exact one-sided bound alone,
q >= q_L = (1 - c)^(1/G), theta_i >= ln(q_L / (1 - q_L)) + ln(b / a) (:func:`unbeaten_bound`; 200 of
200 at 95%: q_L = 0.05^(1/200) = 0.98513, theta >= 4.194, Elo >= 728.5), and no upper end (``high``
+inf), whatever it did against the other rungs; a rung that never won against the bottom rung is the
mirror image. An item without a match-up against item 0 (data a ladder does not make) keeps its
bootstrap interval when unswept match-ups join it to item 0, and otherwise gets the one-sided bound
of each match-up it swept, added to the opponent's lower end (or was swept in, from the opponent's
upper end). ``replicates`` 0: no interval at all (NaN ends).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import choix
import numpy as np
from choix.utils import log_transform, statdist
from scipy import special

Order = tuple[int, ...]
Outcome = tuple[tuple[Order, float], ...]
"""A game's result: (order of items from first to last place, weight), weights summing to 1."""

DEFAULT_CONFIDENCE = 0.95


def distinct_orders(items: Sequence[int]) -> list[Order]:
    """Every distinct ordering of the multiset ``items``, sorted (``[1, 0, 0]`` -> 3 orders)."""
    return sorted(set(itertools.permutations(items)))


def outcome_from_places(items: Sequence[int], places: Sequence[float]) -> Outcome:
    """The outcome of one game: ``items[k]`` (an item index) finished at ``places[k]`` (1 best, tied
    players share a place). Tied groups are spread equally over their distinct orders.

    >>> outcome_from_places([0, 1], [1, 2])
    (((0, 1), 1.0),)
    >>> outcome_from_places([0, 1], [1, 1])
    (((0, 1), 0.5), ((1, 0), 0.5))
    """
    if len(items) != len(places) or not items:
        raise ValueError(f"items and places must be non-empty and of one length, got {len(items)} and {len(places)}")
    groups: dict[float, list[int]] = {}
    for item, place in zip(items, places):
        groups.setdefault(float(place), []).append(int(item))
    per_group = [distinct_orders(groups[p]) for p in sorted(groups)]
    weight = 1.0 / float(np.prod([len(g) for g in per_group]))
    orders = [tuple(itertools.chain.from_iterable(parts)) for parts in itertools.product(*per_group)]
    return tuple((order, weight) for order in sorted(orders))


def draw_outcome(items: Sequence[int]) -> Outcome:
    """The outcome of a game in which every player ties: each distinct order of ``items`` equally."""
    return outcome_from_places(items, [1] * len(items))


@dataclass
class RatingData:
    """Games for a rating fit: distinct outcomes, and per cell the outcome index of every game.

    ``items``: the names of the items (agents), index = position. ``outcomes``: distinct outcomes.
    ``cells``: cell key -> int array (games,) of outcome indices. ``pseudo``: cell key -> the index of
    its pseudo-game outcome (all of its players tied; see the module docstring), or absent.
    """

    items: list[str]
    outcomes: list[Outcome] = field(default_factory=list)
    cells: dict[Hashable, np.ndarray] = field(default_factory=dict)
    pseudo: dict[Hashable, int] = field(default_factory=dict)
    tables: dict[Hashable, tuple[int, ...]] = field(default_factory=dict)
    _index: dict[Outcome, int] = field(default_factory=dict, repr=False)

    def outcome_index(self, outcome: Outcome) -> int:
        """The index of ``outcome`` in :attr:`outcomes`, adding it if new."""
        if outcome not in self._index:
            self._index[outcome] = len(self.outcomes)
            self.outcomes.append(outcome)
        return self._index[outcome]

    def add_cell(self, key: Hashable, table: Sequence[int], games: Sequence[Outcome], shrink: bool = True) -> None:
        """Add a cell: ``table`` its items (with repeats), ``games`` one outcome per game. With
        ``shrink`` the cell gets its pseudo-game (every player of ``table`` tied)."""
        if key in self.cells:
            raise ValueError(f"cell {key!r} added twice")
        self.cells[key] = np.array([self.outcome_index(g) for g in games], dtype=np.int64)
        self.tables[key] = tuple(int(x) for x in table)
        if shrink:
            self.pseudo[key] = self.outcome_index(draw_outcome(table))

    def counts(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Weight of every distinct outcome (float array): the games of every cell plus the
        pseudo-games. With ``rng`` the games are redrawn with replacement, each cell keeping its
        size, and cells of one size redraw the same game indices (game i of every cell shares its
        deal: the cells are paired by game index)."""
        total = np.zeros(len(self.outcomes))
        draws: dict[int, np.ndarray] = {}
        for key, idx in self.cells.items():
            if rng is not None and idx.size:
                if idx.size not in draws:
                    draws[idx.size] = rng.integers(0, idx.size, idx.size)
                idx = idx[draws[idx.size]]
            total += np.bincount(idx, minlength=len(self.outcomes))
            if key in self.pseudo:
                total[self.pseudo[key]] += 1.0
        return total

    @property
    def games(self) -> int:
        return int(sum(idx.size for idx in self.cells.values()))


def pairwise_wins(n_items: int, outcomes: Sequence[Outcome], counts: np.ndarray) -> np.ndarray:
    """The ``(n_items, n_items)`` matrix of wins: entry ``[i, j]`` sums, over 2-item orders ``(i, j)``,
    the outcome's count times the order's weight (a draw is half a win each). Raises ValueError on
    an order of more than two items, or a game of one item against itself (no information)."""
    wins = np.zeros((n_items, n_items))
    for outcome, count in zip(outcomes, counts):
        if count == 0:
            continue
        for order, weight in outcome:
            if len(order) != 2:
                raise ValueError(f"Bradley-Terry takes 2-player games, got an order of {len(order)}")
            if order[0] != order[1]:
                wins[order[0], order[1]] += count * weight
    return wins


def bradley_terry(wins: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths from a matrix of wins (``wins[i, j]``: games i won against j, may
    be fractional), by ``choix.ilsr_pairwise_dense``; anchored so that item 0 has rating 0.

    Raises ValueError when the comparison graph is not strongly connected (some item never lost or
    never won against the rest, or a group never met another): the likelihood has no maximum.
    """
    wins = np.asarray(wins, dtype=float)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {wins.shape}")
    _require_connected(wins > 0)
    theta = choix.ilsr_pairwise_dense(wins, max_iter=10_000, tol=1e-12)
    return theta - theta[0]


def bradley_terry_batch(wins: np.ndarray, start: np.ndarray, tol: float = 1e-12, max_iter: int = 100) -> np.ndarray:
    """Bradley-Terry log-strengths of many win matrices at once (``wins``: (R, n, n), e.g. bootstrap
    replicates), anchored at item 0, by Newton's method on the log-likelihood from ``start`` (n,):
    the same maximum as :func:`bradley_terry` (tested), vectorised over R for the bootstrap. Every
    matrix must connect its items both ways (the pseudo-games see to it). RuntimeError when the
    steps do not shrink below ``tol`` in ``max_iter`` iterations."""
    wins = np.asarray(wins, dtype=float)
    n_rep, n = wins.shape[0], wins.shape[1]
    games = wins + np.swapaxes(wins, 1, 2)
    theta = np.broadcast_to(np.asarray(start, dtype=float) - start[0], (n_rep, n)).copy()
    won = wins.sum(axis=2)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(theta[:, None, :] - theta[:, :, None]))  # [r, i, j]: P(i beats j)
        grad = won - (games * p).sum(axis=2)
        info = games * p * (1.0 - p)
        hess = info.copy()
        hess[:, np.arange(n), np.arange(n)] -= info.sum(axis=2)
        step = np.linalg.solve(-hess[:, 1:, 1:], grad[:, 1:, None])[:, :, 0]
        theta[:, 1:] += step
        if np.abs(step).max() < tol:
            return theta
    raise RuntimeError(f"Bradley-Terry fit did not converge in {max_iter} iterations")


def _require_connected(beats: np.ndarray) -> None:
    """ValueError unless every item reaches every other along ``beats`` edges (i beat j somewhere)."""
    n = beats.shape[0]
    for start in range(n):
        seen, stack = {start}, [start]
        while stack:
            i = stack.pop()
            for j in np.flatnonzero(beats[i]):
                if j not in seen:
                    seen.add(int(j))
                    stack.append(int(j))
        if len(seen) < n:
            raise ValueError(
                "the games do not connect every pair of items both ways (some item never won or "
                "never lost against the others); add the pseudo-games (shrink) or more match-ups"
            )


def _flat_orders(outcomes: Sequence[Outcome]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every order of every outcome as rows of one int array (orders, places), with the index of its
    outcome and its weight within the outcome. All orders must have one length."""
    rows = [(order, i, w) for i, outcome in enumerate(outcomes) for order, w in outcome]
    lengths = {len(order) for order, _, _ in rows}
    if len(lengths) != 1:
        raise ValueError(f"Plackett-Luce here takes games of one player count, got orders of lengths {sorted(lengths)}")
    return (
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=float),
    )


def _lsr_chain(n_items: int, orders: np.ndarray, weight: np.ndarray, strengths: np.ndarray) -> np.ndarray:
    """The LSR Markov chain of choix's ``lsr_rankings`` with order ``r`` weighted by ``weight[r]``: for
    each place, every player not yet placed sends rate ``weight / (sum of the unplaced players'
    strengths)`` to the one who took it. ``orders``: (orders, places) item indices."""
    chain = np.zeros((n_items, n_items))
    places = orders.shape[1]
    remaining = strengths[orders][:, ::-1].cumsum(axis=1)[:, ::-1]  # [r, k]: strength still unplaced at place k
    for k in range(places - 1):
        rate = weight / remaining[:, k]
        for loser in range(k + 1, places):
            np.add.at(chain, (orders[:, loser], orders[:, k]), rate)
    chain -= np.diag(chain.sum(axis=1))
    return chain


def plackett_luce(
    n_items: int,
    outcomes: Sequence[Outcome],
    counts: np.ndarray,
    tol: float = 1e-10,
    max_iter: int = 10_000,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Plackett-Luce log-strengths (maximum likelihood, I-LSR) from distinct outcomes and their
    counts; anchored so that item 0 has rating 0. Items may repeat within an order. ``start``: the
    log-strengths to start the iteration from (a bootstrap starts from the point estimate).

    Raises ValueError when the games do not connect every item both ways (no maximum), RuntimeError
    when the iteration does not converge in ``max_iter`` steps.
    """
    counts = np.asarray(counts, dtype=float)
    beats = np.zeros((n_items, n_items), dtype=bool)
    for outcome, count in zip(outcomes, counts):
        if count > 0:
            for order, _ in outcome:
                for k, winner in enumerate(order[:-1]):
                    for loser in order[k + 1 :]:
                        if winner != loser:
                            beats[winner, loser] = True
    _require_connected(beats)
    orders, outcome_of, order_weight = _flat_orders(outcomes)
    weight = counts[outcome_of] * order_weight
    params = np.zeros(n_items) if start is None else np.asarray(start, dtype=float) - np.mean(start)
    for _ in range(max_iter):
        new = log_transform(statdist(_lsr_chain(n_items, orders, weight, np.exp(params))))
        if np.abs(new - params).sum() < tol:
            return new - new[0]
        params = new
    raise RuntimeError(f"Plackett-Luce fit did not converge in {max_iter} iterations")


def fit(data: RatingData, counts: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Ratings of ``data.items`` from outcome ``counts``: Bradley-Terry when every game has two
    players, else Plackett-Luce (started from ``start``, if given)."""
    n = len(data.items)
    if all(len(order) == 2 for outcome in data.outcomes for order, _ in outcome):
        return bradley_terry(pairwise_wins(n, data.outcomes, counts))
    return plackett_luce(n, data.outcomes, counts, start=start)


@dataclass
class Ratings:
    """Fitted ratings with bootstrap intervals. ``theta``, ``low``, ``high``: arrays (items,), log-
    strengths with item 0 at 0; ``model``: "Bradley-Terry" or "Plackett-Luce"; ``replicates``:
    bootstrap replicates used; ``games``: games fitted."""

    items: list[str]
    theta: np.ndarray
    low: np.ndarray
    high: np.ndarray
    model: str
    replicates: int
    games: int
    confidence: float = DEFAULT_CONFIDENCE

    def rows(self) -> list[dict]:
        """One dict per item: item, theta, ci_low, ci_high, elo (400 theta / ln 10) and its interval;
        an end that does not exist (no upper end for a rung that never lost, none at all without
        bootstrap replicates) is ``None``; ``one_sided`` is "at least" / "at most" for such a rung."""
        k = 400.0 / np.log(10.0)

        def end(x: float, scale: float = 1.0) -> float | None:
            return float(scale * x) if math.isfinite(x) else None

        return [
            {
                "item": name,
                "theta": float(t),
                "ci_low": end(lo),
                "ci_high": end(hi),
                "elo": float(k * t),
                "elo_low": end(lo, k),
                "elo_high": end(hi, k),
                "one_sided": (
                    "at least"
                    if hi == math.inf and math.isfinite(lo)
                    else "at most"
                    if lo == -math.inf and math.isfinite(hi)
                    else None
                ),
            }
            for name, t, lo, hi in zip(self.items, self.theta, self.low, self.high)
        ]


def unbeaten_bound(
    games: int, winner_copies: int = 1, loser_copies: int = 1, confidence: float = DEFAULT_CONFIDENCE
) -> float:
    """Exact one-sided lower bound on theta_i - theta_j when a copy of item i won all ``games`` games
    of a table of ``winner_copies`` copies of i and ``loser_copies`` of j (module docstring):
    ``ln(q / (1 - q)) + ln(loser_copies / winner_copies)`` with ``q = (1 - confidence)^(1/games)``, the
    Clopper-Pearson lower bound of a win probability after ``games`` wins of ``games``.

    >>> round(unbeaten_bound(200), 3)
    4.194
    """
    if games < 1 or winner_copies < 1 or loser_copies < 1:
        raise ValueError(
            f"need at least one game and one copy of each item, got {games}, {winner_copies}, {loser_copies}"
        )
    q = (1.0 - confidence) ** (1.0 / games)
    return math.log(q / (1.0 - q)) + math.log(loser_copies / winner_copies)


def unbeaten_cells(data: RatingData, confidence: float = DEFAULT_CONFIDENCE) -> list[tuple[Hashable, int, int, float]]:
    """``(cell key, winner, loser, bound)`` for every cell of two distinct items in which a copy of ``winner``
    finished first in every game (every order of every game's outcome), with the
    :func:`unbeaten_bound` of ``theta_winner - theta_loser`` at ``confidence``."""
    out = []
    for key, idx in data.cells.items():
        table = data.tables.get(key, ())
        items = sorted(set(table))
        if len(items) != 2 or idx.size == 0:
            continue
        firsts = {order[0] for k in np.unique(idx) for order, _ in data.outcomes[int(k)]}
        if len(firsts) != 1:
            continue
        winner = firsts.pop()
        loser = items[1] if winner == items[0] else items[0]
        bound = unbeaten_bound(int(idx.size), table.count(winner), table.count(loser), confidence)
        out.append((key, winner, loser, bound))
    return out


def _informative_reach(data: RatingData, swept: set[Hashable]) -> set[int]:
    """The items joined to item 0 (the anchor) by a chain of match-ups of two items that were not
    swept (each side won a game): the items whose bootstrap interval the games can give."""
    edges: dict[int, set[int]] = {}
    for key, idx in data.cells.items():
        items = sorted(set(data.tables.get(key, ())))
        if len(items) == 2 and idx.size and key not in swept:
            edges.setdefault(items[0], set()).add(items[1])
            edges.setdefault(items[1], set()).add(items[0])
    reach, stack = {0}, [0]
    while stack:
        for j in edges.get(stack.pop(), ()):
            if j not in reach:
                reach.add(j)
                stack.append(j)
    return reach


def _anchor_cell(data: RatingData, item: int) -> tuple[int, int, int, int] | None:
    """(first places of a copy of ``item``, games, copies of item, copies of item 0) in the largest
    cell of ``item`` against item 0 alone (ties for first split, rounded), or None without one."""
    best = None
    for key, idx in data.cells.items():
        table = data.tables.get(key, ())
        if sorted(set(table)) != [0, item] or idx.size == 0:
            continue
        counts = np.bincount(idx, minlength=len(data.outcomes))
        firsts = sum(c * w for k, c in enumerate(counts) if c for order, w in data.outcomes[k] if order[0] == item)
        row = (int(round(firsts)), int(idx.size), table.count(item), table.count(0))
        if best is None or row[1] > best[1]:
            best = row
    return best


def matchup_interval(
    wins: int, games: int, copies: int = 1, others: int = 1, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """The exact interval of theta_i - theta_j from one match-up alone: a copy of i finished first in
    ``wins`` of ``games`` games at a table of ``copies`` copies of i and ``others`` of j, where
    P(a copy of i is first) q = copies p_i / (copies p_i + others p_j), so theta_i - theta_j =
    logit(q) + ln(others / copies). q's Clopper-Pearson interval, two-sided at ``confidence``; after a
    sweep (``wins`` = ``games``) the one-sided bound of :func:`unbeaten_bound` and no upper end, after
    none won the mirror image."""
    if wins >= games:
        return unbeaten_bound(games, copies, others, confidence), math.inf
    if wins <= 0:
        return -math.inf, -unbeaten_bound(games, others, copies, confidence)
    tail = (1.0 - confidence) / 2.0
    q_low = float(special.betaincinv(wins, games - wins + 1, tail))
    q_high = float(special.betaincinv(wins + 1, games - wins, 1.0 - tail))
    shift = math.log(others / copies)
    return special.logit(q_low) + shift, special.logit(q_high) + shift


def _one_sided(
    theta: np.ndarray, low: np.ndarray, high: np.ndarray, data: RatingData, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) with a bound per match-up (module docstring): every item with a match-up against
    item 0 (the bottom rung, 0 by definition) gets the smallest interval holding both its bootstrap
    interval and that match-up's exact interval (:func:`matchup_interval`: Clopper-Pearson, one-sided
    after a sweep, so no upper end for a rung that never lost to the bottom rung); an item without
    one that the chains of unswept match-ups do not join to item 0 gets the exact one-sided bound of
    each match-up it swept (a lower end: the opponent's lower end plus the bound) or was swept in (an
    upper end), the tightest, and no end on a side without one."""
    low, high = low.astype(float).copy(), high.astype(float).copy()
    cells = unbeaten_cells(data, confidence)
    reach = _informative_reach(data, {key for key, *_ in cells})
    exact = {}
    for i in range(1, len(theta)):
        cell = _anchor_cell(data, i)
        if cell is not None:
            exact[i] = matchup_interval(*cell, confidence=confidence)
    loose = [i for i in range(len(theta)) if i not in reach and i not in exact]
    for i, (lo, hi) in exact.items():
        if math.inf in (lo, hi) or -math.inf in (lo, hi):
            # a sweep pins the bootstrap on the pseudo-game's point: the match-up's exact bound alone
            low[i], high[i] = lo, hi
        else:
            low[i], high[i] = min(low[i], lo), max(high[i], hi)
    for i in loose:
        low[i], high[i] = -math.inf, math.inf
    for _ in range(len(theta)):  # bounds chain through opponents: at most one pass per item
        for i in loose:
            low[i] = max([low[i]] + [low[lo] + b for _, w, lo, b in cells if w == i])
            high[i] = min([high[i]] + [high[w] - b for _, w, lo, b in cells if lo == i])
    return low, high


def rate(
    data: RatingData,
    replicates: int = 1000,
    seed: int | np.random.SeedSequence = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Ratings:
    """Fit ``data`` and bootstrap it over games (``replicates`` redraws, generator seeded by ``seed``):
    the point estimate, and percentile intervals at ``confidence``, with the exact one-sided bound
    (no upper end, ``high`` +inf) for an item that never lost (module docstring). ``replicates`` 0
    gives no interval (NaN ends). Raises what :func:`fit` raises."""
    if replicates < 0:
        raise ValueError(f"replicates must be at least 0, got {replicates}")
    theta = fit(data, data.counts())
    two = all(len(order) == 2 for outcome in data.outcomes for order, _ in outcome)
    if replicates == 0:
        low = high = np.full_like(theta, math.nan)
    else:
        rng = np.random.default_rng(seed)
        resampled = [data.counts(rng) for _ in range(replicates)]
        if two:  # one Newton iteration for every replicate at once (the same maximum as choix's)
            n = len(data.items)
            per_outcome = np.array([pairwise_wins(n, [o], np.ones(1)).ravel() for o in data.outcomes])
            draws = bradley_terry_batch((np.array(resampled) @ per_outcome).reshape(-1, n, n), theta)
        else:
            draws = np.array([fit(data, counts, start=theta) for counts in resampled])
        tail = (1.0 - confidence) / 2.0
        low, high = np.quantile(draws, tail, axis=0), np.quantile(draws, 1.0 - tail, axis=0)
        low, high = _one_sided(theta, low, high, data, confidence)
    return Ratings(
        list(data.items),
        theta,
        np.asarray(low),
        np.asarray(high),
        "Bradley-Terry" if two else "Plackett-Luce",
        replicates,
        data.games,
        confidence,
    )
