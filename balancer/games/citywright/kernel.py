"""Citywright's compiled game interface (:mod:`balancer.core.kernel`): the one compiled source of
its legality and transitions.

**The rule table** ``T`` (:class:`Compiled`, from :func:`compile_variant`): the variant's compiled
rules (:class:`~.rules.Rules`), the table geometry and scoring numbers, where each part of the
position lives in ``S`` (:class:`~.rules.Layout`), the size of a legal-move buffer, and the agent
parameters of the heuristic (``agents.heuristic`` in the YAML).

**The position** ``S``: one int64 buffer (:func:`new_state`); the rules read it through
:func:`~.rules.views` (the tables, site board, slots, piles, ticks, stats and ``g`` as views into
``S``), so :func:`~.rules.apply_move`, the scorer and the greedy search run on it unchanged.

**Moves.** A turn (§5: draft a ruler, take its line's tiles, lay them) is up to four decisions of
the same player; ``g`` remembers the ones taken (``G_PHASE``, ``G_SLOT``, ``G_PLACE``,
``G_ORDER``), and the turn is played (:func:`~.rules.apply_move`) at its last decision. Each
decision is one int64, from disjoint ranges:

====================  =========================  ==================================================
phase                 code                       meaning
====================  =========================  ==================================================
1 draft (DRAFT)       ``slot`` 0..19             draft that slot's ruler (§5 step 1)
                      ``PASS`` = 20              every slot is empty (a variant's decks ran dry):
                                                 the turn is lost; the only move then
2 placement           ``PLACE0 + p`` (2048 + p)  lay the ruler as placement ``p`` (a row of the
  (PLACEMENT)                                    placement table: orientation and position, the
                                                 distinct sets of landed cells, §5 step 3)
                      ``FORCED_DISCARD`` = 21    the ruler has no legal placement: ruler and tiles
                                                 discarded (§5); listed only then
                      ``D4T0 + 4 c + d - 1``     two players, corner ruler (§9.2): discard it out of
                      (1024 + ...)               the game for district ``d`` (1-4) on empty cell ``c``
3 tile order (ORDER)  ``ORDER0 + sum d_j 5^j``   the districts ``d_0..d_{k-1}`` (1-4) laid on the
                      (32 + ...)                 placement's landed non-star cells in order: the
                                                 distinct orders of ``k`` of the line's 4 tiles
                                                 (:data:`~.rules.SEQS`); skipped when there is only
                                                 one (no tile lands, or they are all alike)
4 free pick (PICK)    ``PICK0 + d - 1`` (22..25)  the free pick's district ``d`` on the star cell;
                                                 only a five-cell ruler whose star lands (an
                                                 off-table free pick is lost, not a decision)
====================  =========================  ==================================================

Legal moves are listed in that order: slots ascending; placements ascending, then the forced
discard, then the discard-for-tile options by cell and district; tile orders in :data:`SEQS`
order; districts ascending. A drafted slot always asks for phase 2 (a single move when its ruler
has no placement and no §9.2 option), so every turn starts with the draft and the seat to move never
changes within a turn.

**Hidden information**: the order of the two draw piles. Everything else is public: the tables,
ticks and score sheets, the site board, the dealt rulers, the discard piles (their cards and order,
which follow from what was dealt). :func:`determinize` gathers each draw pile's cards in canonical
(sorted) order and shuffles them with the generator it is given; :func:`observation` is ``S`` with
each draw pile sorted. (The next site boards are not in ``S``: they are drawn at Cleanup, inside
:func:`apply`.)

**Values.** :func:`returns` with several players: win shares with the §8 tie-breakers (the total,
seat bonus included; then fewer empty cells; then more distinct shapes; then a shared victory).
Solo (§10.3 says to read a rank from the total, but prints no rank table): a logistic of the final
total against ``agents.heuristic.solo_par``, ``1 / (1 + exp(-(total - solo_par) / scale))``.
:func:`heuristic` before the end: with several players a logistic of each seat's margin over the
best other seat, ``1 / (1 + exp(-margin / scale))``, each seat's value being its current points
(every table's :func:`~.scoring.score_all`, plus achievements and seat bonus as if the game ended
now) plus its *progress*: ``potential`` x the share of its turns still to play x the share reached
of each next step of points (the largest residential cluster's next pair, §6.1; the next commercial
tier, §6.2; the next industrial pair, §6.4; the steps are the YAML's scoring numbers), plus
``room`` x the empty cells its remaining turns can still fill (at most 4 a turn). Solo the same
logistic against ``solo_par`` scaled by the share of the game's turns already taken. At the end it
equals :func:`returns`. ``scale``, ``solo_par``, ``potential`` and ``room`` are agent parameters
(YAML ``agents.heuristic``), not rules.

**Move scores** (:func:`move_scores`, the search's priors and scored rollouts): the greedy agent's
own evaluation of each decision, the best (gain, tie-break) of a whole turn the decision can
complete, as gain + 1/64 x tie-break (:func:`~.greedy.greedy_search`'s scoring modes: the greedy's
branch and bound, pruned per decision). The greedy agent's decision is always a best-scored one.

**Policy**: uniform over the legal moves (the rollout policy of a search). A one-ply greedy turn
costs about 60 microseconds, a whole game of them some 3 ms, too slow for rollouts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numba as nb
import numpy as np

from ...core.game import Outcome
from ...core.kernel import Engine, Kernel, ended_by_rules
from .config import DISTRICTS, CitywrightConfig
from .greedy import BY_ORDER, BY_PICK, BY_PLACEMENT, BY_RULER, Workspace, greedy_search, scratch
from .rules import (
    DISCARD_FOR_TILE,
    FINAL_COLUMNS,
    FORCED,
    G_ORDER,
    G_OVER,
    G_PHASE,
    G_PLACE,
    G_ROUND,
    G_SLOT,
    G_START,
    G_STEP,
    N_EDGE,
    N_SEQ,
    N_SLOTS,
    PLACE,
    SEQS,
    SITE,
    Layout,
    Rules,
    apply_move,
    below,
    compile_rules,
    final_rows,
    line_multiset,
    placement_fits,
    setup,
    state_layout,
    state_views,
    views,
)
from .scoring import (
    Geometry,
    PlacementFeatures,
    ScoreParams,
    placement_features,
    popcount,
    score_all,
    table_masks,
    top_two_clusters,
)

DRAFT, PLACEMENT, ORDER, PICK = 0, 1, 2, 3
"""Phases of a turn (``g[G_PHASE]``): the decision the seat to move takes next."""
PASS, FORCED_DISCARD, PICK0, ORDER0, D4T0, PLACE0 = 20, 21, 22, 32, 1024, 2048
"""Move codes (see the module docstring)."""

SLOT_NAMES = (
    [f"row {r + 1} left" for r in range(4)]
    + [f"row {r + 1} right" for r in range(4)]
    + [f"column {c + 1} top" for c in range(4)]
    + [f"column {c + 1} bottom" for c in range(4)]
    + ["top-left corner", "top-right corner", "bottom-right corner", "bottom-left corner"]
)
LETTERS = ".RCPI"


class Compiled(NamedTuple):
    """The rule table ``T`` of one variant and player count (what every kernel function takes)."""

    rules: Rules
    geo: Geometry
    sp: ScoreParams
    lay: Layout
    max_moves: int  # a bound on legal()'s count: the size of a move buffer
    scale: float  # heuristic: points of margin per unit of the logistic (agents.heuristic.scale)
    solo_par: float  # solo: the final total valued 0.5 (agents.heuristic.solo_par)
    turns_total: int  # turns in a game, all seats (solo heuristic's share of the game played)
    value_w: np.ndarray  # float64[n, 4]: per seat, the weight of each district's points in its heuristic
    pl_feat: PlacementFeatures  # what the greedy search reads of each placement, once per table
    scratch: Workspace  # move_scores' greedy search scratch, allocated once per table (no meaning between calls)
    rec: np.ndarray  # float64[P + 4 cells]: move_scores' per-decision bests (scratch)
    potential: float  # heuristic: weight of the progress toward each next step of points (agents.heuristic)
    room: float  # heuristic: points per empty cell the seat's remaining turns can fill (agents.heuristic)
    steps: np.ndarray  # int64[3, cells + 1]: per count-based score (largest cluster, commercial, industrial)
    #   the points of n tiles, for the potential (from the scoring rules)


def _check_players(cfg: CitywrightConfig, n_players: int) -> None:
    if n_players not in cfg.player_counts:
        noun = "player is" if n_players == 1 else "players is"
        raise ValueError(
            f"{n_players} {noun} not supported by variant {cfg.variant!r} "
            f"(supported: {', '.join(map(str, cfg.player_counts))})"
        )


@lru_cache(maxsize=64)
def _compile_json(model: type[CitywrightConfig], cfg_json: str, n_players: int) -> Compiled:
    cfg = model.model_validate_json(cfg_json)  # the config's own model: the registry's holds the generic agents' keys
    rules, geo, sp = compile_rules(cfg, n_players)
    cells = cfg.table.size**2
    per_shape = int(np.max(np.diff(rules.pl_off)))
    # phase 2 is the largest: every placement of a shape, the forced discard, 4 districts x every cell
    max_moves = max(N_SLOTS + 1, per_shape + 1 + 4 * cells, int(N_SEQ.max()), 4)
    h = cfg.agents.heuristic
    feat = placement_features(rules.pl_mask, cfg.table.size)
    return Compiled(
        rules,
        geo,
        sp,
        state_layout(rules, cells),
        max_moves,
        float(h.scale),
        float(h.solo_par),
        rules.rounds * rules.turns * n_players,
        np.ones((n_players, len(DISTRICTS))),
        feat,
        scratch(rules, cells, feat),
        np.zeros(len(rules.pl_mask) + 4 * cells),
        float(h.potential),
        float(h.room),
        _steps(sp, cells),
    )


def _steps(sp: ScoreParams, cells: int) -> np.ndarray:
    """The points of n tiles (0..cells) of each count-based score, from the variant's scoring rules:
    the largest residential cluster (§6.1), commercial tiers (§6.2), industrial groups (§6.4)."""
    n = np.arange(cells + 1)
    return np.stack([sp.res_largest_points * (n // sp.res_largest_per), sp.com_count, sp.ind_count]).astype(np.int64)


_BY_ID: dict[tuple[int, int], tuple[CitywrightConfig, Compiled]] = {}
_CFG_OF: dict[int, tuple[Compiled, CitywrightConfig]] = {}
_STYLED: dict[tuple[int, bytes], tuple[Compiled, Compiled]] = {}


def compile_variant(cfg: CitywrightConfig, n_players: int) -> Compiled:
    """The rule table ``T`` of ``cfg`` for ``n_players`` (cached per config). Raises ValueError for
    an unsupported player count."""
    hit = _BY_ID.get((id(cfg), n_players))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    _check_players(cfg, n_players)
    T = _compile_json(type(cfg), cfg.model_dump_json(), n_players)
    _BY_ID[(id(cfg), n_players)] = (cfg, T)
    _CFG_OF.setdefault(id(T), (T, cfg))
    return T


def with_value_weights(cfg: CitywrightConfig, T: Compiled, weights: np.ndarray) -> Compiled:
    """``T`` whose heuristic counts seat ``s``'s district points with ``weights[s]`` (float64[n, 4],
    residential, commercial, park, industrial; agent parameters, e.g. a specialist's
    ``agents.specialists``): an ``mcts+commercial`` seat's search values its own table as the
    commercial specialist does. The rules, and :func:`returns` at the end, are unchanged."""
    w = np.array(weights, np.float64)
    if w.shape != T.value_w.shape or (w < 0).any():
        raise ValueError(f"value weights: need {T.value_w.shape[0]} x 4 weights of 0 or more, got shape {w.shape}")
    key = (id(T), w.tobytes())  # one styled table per rule table and weights, not one per game
    hit = _STYLED.get(key)
    if hit is not None and hit[0] is T:
        return hit[1]
    styled = T._replace(value_w=w)
    _STYLED[key] = (T, styled)
    _CFG_OF[id(styled)] = (styled, cfg)
    return styled


def config_of(T: Compiled) -> CitywrightConfig:
    """The config ``T`` was compiled from (for names in transcripts)."""
    hit = _CFG_OF.get(id(T))
    if hit is None or hit[0] is not T:
        raise KeyError("this rule table was not made by compile_variant")
    return hit[1]


# --------------------------------------------------------------------------------------------------
# the compiled interface


@nb.njit(cache=True)
def new_state(T, rng):
    """A game after §3 Setup, drawn with ``rng`` (the game's own chance): int64[T.lay.size]."""
    S = np.zeros(T.lay.size, np.int64)
    st = views(S, T.lay)
    st.slots[:] = -1
    st.dealt[:] = -1
    setup(st, T.rules.deck4, T.rules.deck5, rng)
    return S


@nb.njit(cache=True)
def to_move(S, T):
    """The seat (0-based) whose decision it is (§4.2: clockwise from the start player)."""
    return (S[G_START] + S[G_STEP]) % T.rules.n_players


@nb.njit(cache=True)
def is_over(S, T):
    """True after the last turn of the last round (§4.2)."""
    return S[G_OVER] != 0


@nb.njit(cache=True)
def _filled(S, base, cells):
    """Bit mask of the non-empty cells of the table at ``S[base:base + cells]``."""
    m = np.uint64(0)
    for i in range(cells):
        if S[base + i]:
            m |= np.uint64(1) << np.uint64(i)
    return m


@nb.njit(cache=True)
def _order_code(ms, k, q):
    """The move code of tile order ``q`` of ``SEQS[ms, k]``."""
    code = 0
    mult = 1
    for j in range(k):
        code += SEQS[ms, k, q, j] * mult
        mult *= 5
    return ORDER0 + code


@nb.njit(cache=True)
def legal(S, T, out):
    """The legal decisions of the seat to move into ``out`` (int64[T.max_moves]); returns their
    count, 0 once the game is over (§5, §9.2; the order is the module docstring's)."""
    if S[G_OVER]:
        return 0
    rules = T.rules
    lay = T.lay
    phase = S[G_PHASE]
    if phase == DRAFT:
        k = 0
        for s in range(N_SLOTS):
            if S[lay.slots + s] >= 0:
                out[k] = s
                k += 1
        if k == 0:
            out[0] = PASS
            k = 1
        return k
    slot = S[G_SLOT]
    if phase == PLACEMENT:
        shape = S[lay.slots + slot]
        base = lay.tables + to_move(S, T) * lay.cells
        filled = _filled(S, base, lay.cells)
        k = 0
        for p in range(rules.pl_off[shape], rules.pl_off[shape + 1]):
            if placement_fits(rules, p, filled):
                out[k] = PLACE0 + p
                k += 1
        if k == 0:
            out[0] = FORCED_DISCARD
            k = 1
        if rules.discard_for_tile and slot >= N_EDGE:
            for c in range(lay.cells):
                if S[base + c] == 0:
                    for d in range(4):
                        out[k] = D4T0 + 4 * c + d
                        k += 1
        return k
    if phase == ORDER:
        ms = line_multiset(S[lay.site : lay.site + SITE], slot)
        kk = rules.pl_k[S[G_PLACE]]
        n = N_SEQ[ms, kk]
        for q in range(n):
            out[q] = _order_code(ms, kk, q)
        return n
    # PICK: any district on the site board (§5 step 2: copy any 1 of the 16 cells)
    present = 0
    for i in range(SITE):
        present |= 1 << S[lay.site + i]
    k = 0
    for d in range(1, 5):
        if present & (1 << d):
            out[k] = PICK0 + d - 1
            k += 1
    return k


@nb.njit(cache=True)
def _star_lands(T, shape, p):
    return T.rules.shape_five[shape] != 0 and T.rules.pl_star[p] >= 0


@nb.njit(cache=True, inline="always")  # called with constants: inlined, not one library per constant
def _play_turn(S, T, kind, slot, a, b, star, rng):
    """Compose the turn (``rules`` move array) from its decisions, clear them and play it."""
    mv = np.zeros(8, np.int64)
    mv[0] = kind
    mv[1] = slot
    if kind == PLACE:
        mv[2] = a
        code = b - ORDER0
        for j in range(T.rules.pl_k[a]):
            mv[3 + j] = code % 5
            code //= 5
        mv[7] = star
    elif kind == DISCARD_FOR_TILE:
        mv[2] = a
        mv[3] = b
    S[G_PHASE] = DRAFT
    S[G_SLOT] = 0
    S[G_PLACE] = 0
    S[G_ORDER] = 0
    apply_move(views(S, T.lay), T.rules, mv, rng)


@nb.njit(cache=True)
def apply(S, T, m, rng):
    """Take decision ``m`` (one of :func:`legal`'s) for the seat to move, in place; the turn's last
    decision plays the turn, and Cleanup between rounds (§4.2) draws from ``rng``. Does not check
    legality."""
    lay = T.lay
    phase = S[G_PHASE]
    if phase == DRAFT:
        if m == PASS:
            _play_turn(S, T, FORCED, -1, 0, 0, 0, rng)
            return
        S[G_SLOT] = m
        S[G_PHASE] = PLACEMENT
        return
    slot = S[G_SLOT]
    shape = S[lay.slots + slot]
    if phase == PLACEMENT:
        if m == FORCED_DISCARD:
            _play_turn(S, T, FORCED, slot, 0, 0, 0, rng)
            return
        if m < PLACE0:
            c = (m - D4T0) // 4
            _play_turn(S, T, DISCARD_FOR_TILE, slot, c, m - D4T0 - 4 * c + 1, 0, rng)
            return
        p = m - PLACE0
        S[G_PLACE] = p
        ms = line_multiset(S[lay.site : lay.site + SITE], slot)
        k = T.rules.pl_k[p]
        if N_SEQ[ms, k] > 1:
            S[G_PHASE] = ORDER
            return
        S[G_ORDER] = _order_code(ms, k, 0)
        if _star_lands(T, shape, p):
            S[G_PHASE] = PICK
            return
        _play_turn(S, T, PLACE, slot, p, S[G_ORDER], 0, rng)
        return
    if phase == ORDER:
        S[G_ORDER] = m
        if _star_lands(T, shape, S[G_PLACE]):
            S[G_PHASE] = PICK
            return
        _play_turn(S, T, PLACE, slot, S[G_PLACE], m, 0, rng)
        return
    _play_turn(S, T, PLACE, slot, S[G_PLACE], S[G_ORDER], m - PICK0 + 1, rng)


@nb.njit(cache=True)
def turn_decisions(S, T, mv, out):
    """The decisions (into ``out``, int64[4]; returns their count) that play the whole turn ``mv``
    (a ``rules`` move array, e.g. the greedy search's) from ``S`` at the start of a turn. Does not
    check legality: each decision is legal exactly when ``mv`` is a legal turn."""
    slot = mv[1]
    if slot < 0:
        out[0] = PASS
        return 1
    out[0] = slot
    if mv[0] == FORCED:
        out[1] = FORCED_DISCARD
        return 2
    if mv[0] == DISCARD_FOR_TILE:
        out[1] = D4T0 + 4 * mv[2] + mv[3] - 1
        return 2
    p = mv[2]
    out[1] = PLACE0 + p
    n = 2
    lay = T.lay
    k = T.rules.pl_k[p]
    if N_SEQ[line_multiset(S[lay.site : lay.site + SITE], slot), k] > 1:
        code = 0
        mult = 1
        for j in range(k):
            code += mv[3 + j] * mult
            mult *= 5
        out[n] = ORDER0 + code
        n += 1
    if _star_lands(T, S[lay.slots + slot], p):
        out[n] = PICK0 + mv[7] - 1
        n += 1
    return n


@nb.njit(cache=True)
def _rows(S, T):
    st = views(S, T.lay)
    return final_rows(st, T.rules, score_all(st.tables, T.geo, T.sp))


@nb.njit(cache=True)
def scores(S, T, out):
    """Points per seat as if the game ended now (§6.5 total: districts, achievements, seat bonus);
    the final scores at the end."""
    rows = _rows(S, T)
    for s in range(T.rules.n_players):
        out[s] = rows[s, 0] + rows[s, 1] + rows[s, 2] + rows[s, 3] + rows[s, 4] + rows[s, 5]


def checkpoints_of(rules) -> int:
    """The checkpoints of every game of ``rules`` (a :class:`~.rules.Rules`): one per turn of the whole
    table (every seat has taken one more turn, §4.2), ``rounds x turns`` in all (12 in v1.1 at every
    player count), the last one the game's end. Exact, not only a bound: every game plays all its
    turns (a turn with no ruler left is lost, not skipped), so no game has fewer and none more; the
    config model (:class:`~.config.RoundPlan`) bounds ``rounds`` and ``turns``."""
    return int(rules.rounds) * int(rules.turns)


def trajectory_buffer(T) -> np.ndarray:
    """``Engine.trajectory_buffer``: int64[K, n] zeros, K = :func:`checkpoints_of`."""
    return np.zeros((checkpoints_of(T.rules), T.rules.n_players), np.int64)


@nb.njit(cache=True)
def record_checkpoint(S, T, traj, k):
    """After a move: when it ended turn ``k + 1`` of the whole table (every seat has taken one more
    turn, :func:`checkpoints_of`), row ``k`` of ``traj`` (int64[K, n]) gets each seat's score as if
    the game ended now (:func:`scores`: the drawing tables scored as they stand, achievements as §7
    would give them now, the seat bonus) and ``k + 1`` is returned; else ``k``. Every loop records
    the trajectory with it: the game's own table loop and the generic one of a table with a search
    seat (``Engine.record_checkpoint``)."""
    n = T.rules.n_players
    now = S[G_ROUND] * n * T.rules.turns + S[G_STEP]  # turns the table has taken (at the end: G_ROUND = rounds, step 0)
    if now == (k + 1) * n:
        scores(S, T, traj[k])
        return k + 1
    return k


@nb.njit(cache=True)
def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


@nb.njit(cache=True)
def _partial_step(steps, n):
    """The share of the next step of ``steps`` (points of n tiles, a nondecreasing staircase) that
    ``n`` tiles have reached, in points: (next step's points - points now) x (n - the count where
    this stair began) / (the stair's width); 0 where each tile scores at once."""
    n = np.int64(n)  # a popcount is unsigned: keep the index arithmetic in int64
    top = steps.shape[0] - 1
    hi = n + 1
    while hi < top and steps[hi] == steps[n]:
        hi += 1
    if hi > top or steps[hi] == steps[n]:
        return 0.0
    lo = n
    while lo > 0 and steps[lo - 1] == steps[n]:
        lo -= 1
    return (steps[hi] - steps[n]) * (n - lo) / (hi - lo)


@nb.njit(cache=True)
def _progress(S, T, rows, pot):
    """Per seat, the heuristic's points for progress (module docstring): ``potential`` x the share of
    the seat's turns still to play x its partial steps (largest residential cluster, commercial
    count, industrial count), plus ``room`` x the empty cells its remaining turns can fill."""
    st = views(S, T.lay)
    geo = T.geo
    per_seat = T.rules.rounds * T.rules.turns
    for s in range(T.rules.n_players):
        left = max(0, per_seat - rows[s, 11])
        R, C, P, I = table_masks(st.tables[s])
        a, _ = top_two_clusters(R, geo)
        part = (
            _partial_step(T.steps[0], a)
            + _partial_step(T.steps[1], popcount(C))
            + _partial_step(T.steps[2], popcount(I))
        )
        pot[s] = T.potential * part * left / max(1, per_seat) + T.room * min(rows[s, 6], 4 * left)


@nb.njit(cache=True)
def _values(S, T, out, final):
    rows = _rows(S, T)
    n = T.rules.n_players
    total = np.zeros(n, np.int64)
    for s in range(n):
        total[s] = rows[s, 0] + rows[s, 1] + rows[s, 2] + rows[s, 3] + rows[s, 4] + rows[s, 5]
    pot = np.zeros(n, np.float64)
    if not final and (T.potential > 0.0 or T.room > 0.0):
        _progress(S, T, rows, pot)
    if n == 1:
        par = T.solo_par
        if not final:
            par *= min(1.0, rows[0, 11] / max(1, T.turns_total))
        out[0] = _logistic((total[0] + pot[0] - par) / T.scale)
        return
    if not final:
        w = T.value_w
        for s in range(n):
            best = -1e300
            for o in range(n):
                if o != s and total[o] + pot[o] > best:
                    best = float(total[o]) + pot[o]
            # own districts weighted (1 each unless an mcts+<specialist> seat), the other seats at face value
            own = (w[s, 0] * rows[s, 0] + w[s, 1] * rows[s, 1] + w[s, 2] * rows[s, 2] + w[s, 3] * rows[s, 3]) + float(
                rows[s, 4] + rows[s, 5]
            )
            out[s] = _logistic((own + pot[s] - best) / T.scale)
        return
    # §8: the total, then fewer empty cells, then more distinct shapes; still tied: shared victory
    winners = 0
    b0 = -(1 << 62)
    b1 = -(1 << 62)
    b2 = -(1 << 62)
    for s in range(n):
        k0, k1, k2 = total[s], -rows[s, 6], rows[s, 7]
        if k0 > b0 or (k0 == b0 and (k1 > b1 or (k1 == b1 and k2 > b2))):
            b0, b1, b2 = k0, k1, k2
    for s in range(n):
        if total[s] == b0 and -rows[s, 6] == b1 and rows[s, 7] == b2:
            winners += 1
    for s in range(n):
        out[s] = 1.0 / winners if (total[s] == b0 and -rows[s, 6] == b1 and rows[s, 7] == b2) else 0.0


@nb.njit(cache=True)
def returns(S, T, out):
    """At the end, per seat (float64[n]): win shares with the §8 tie-breakers; solo, the logistic
    of the total against ``solo_par`` (module docstring)."""
    _values(S, T, out, np.bool_(True))  # a bool, not a literal True: one compile of _values


@nb.njit(cache=True)
def heuristic(S, T, out):
    """Per seat, in [0, 1]: a logistic of the score margin over the best other seat, the seat's own
    district points weighted by ``T.value_w`` (1 unless set by :func:`with_value_weights`); solo, of
    the total against the share of ``solo_par`` due by now; :func:`returns` at the end."""
    _values(S, T, out, S[G_OVER] != 0)


@nb.njit(cache=True)
def _sort_draw_piles(S, T):
    """Each draw pile's cards (hidden order) in ascending order, in place."""
    lay = T.lay
    for pile in (0, 2):
        base = lay.piles + pile * lay.cap
        n = S[lay.pile_n + pile]
        for i in range(1, n):
            x = S[base + i]
            j = i - 1
            while j >= 0 and S[base + j] > x:
                S[base + j + 1] = S[base + j]
                j -= 1
            S[base + j + 1] = x


@nb.njit(cache=True)
def determinize(S, T, seat, rng):
    """Resample what ``seat`` cannot see, in place: the order of both draw piles (their cards in
    canonical order, then shuffled with ``rng``). Every seat sees the same, so ``seat`` is unused."""
    _sort_draw_piles(S, T)
    lay = T.lay
    for pile in (0, 2):
        base = lay.piles + pile * lay.cap
        for i in range(S[lay.pile_n + pile] - 1, 0, -1):
            j = below(rng, i + 1)
            t = S[base + i]
            S[base + i] = S[base + j]
            S[base + j] = t


@nb.njit(cache=True)
def policy(S, T, out, rng):
    """The rollout move: uniform over :func:`legal` (one ``rng.random()``)."""
    n = legal(S, T, out)
    return out[min(int(rng.random() * n), n - 1)]


@nb.njit(cache=True)
def _order_index(ms, k, code):
    """The index q in :data:`~.rules.SEQS` ``[ms, k]`` of the tile order whose move code is ``code``."""
    for q in range(N_SEQ[ms, k]):
        if _order_code(ms, k, q) == code:
            return q
    return 0


@nb.njit(cache=True)
def move_scores(S, T, moves, n, out):
    """The greedy agent's score of each decision ``moves[:n]`` into ``out[:n]``: the best gain
    (gain + :data:`~.greedy.SEC_UNIT` x its tie-break, 2 x tiles landed + new shape) of a whole turn
    the decision can complete, from the greedy's own search (:func:`~.greedy.greedy_search`, pruned
    per decision): a slot, its ruler's best turn (a corner slot's §9.2 discards for a tile included);
    a placement, its best tile order and free pick; a tile order, its best free pick; a free pick, its
    turn's gain; a forced discard or a lost turn (no ruler left), 0. The gain is the seat's own points
    this turn (§6, §7), its districts weighted by ``T.value_w`` (1 each unless an ``mcts+<district>``
    seat, then the specialist's weights), so the greedy agent plays a move of the largest score at
    every decision."""
    if n == 0:
        return
    lay = T.lay
    rules = T.rules
    st = views(S, lay)
    seat = to_move(S, T)
    w = np.ones(5)
    for d in range(4):
        w[d] = T.value_w[seat, d]
    ws = T.scratch
    n_pl = rules.pl_mask.shape[0]
    rec = T.rec
    rec[:] = -1e18
    # every call passes the mode and target as plain int64 (np.int64(...)): a constant argument is typed
    # as a literal, and numba would compile the 840-line greedy_search once per mode
    salt = np.uint64(1)  # exact ties do not change a score
    phase = S[G_PHASE]
    if phase == DRAFT:
        if moves[0] == PASS:
            out[0] = 0.0
            return
        greedy_search(
            st, rules, T.geo, T.sp, w, salt, ws, np.int64(BY_RULER), np.int64(0), np.int64(0), np.int64(0), rec
        )
        d4t = -1e18
        for i in range(n_pl, n_pl + 4 * lay.cells):
            d4t = max(d4t, rec[i])
        for i in range(n):
            s = moves[i]
            out[i] = rec[ws.slot_group[s]]
            if s >= N_EDGE:
                out[i] = max(out[i], d4t)
        return
    slot = S[G_SLOT]
    if phase == PLACEMENT:
        if n == 1 and moves[0] == FORCED_DISCARD:
            out[0] = 0.0
            return
        greedy_search(
            st, rules, T.geo, T.sp, w, salt, ws, np.int64(BY_PLACEMENT), np.int64(slot), np.int64(0), np.int64(0), rec
        )
        for i in range(n):
            m = moves[i]
            if m == FORCED_DISCARD:
                out[i] = 0.0
            elif m < PLACE0:
                out[i] = rec[n_pl + m - D4T0]
            else:
                out[i] = rec[m - PLACE0]
        return
    p = S[G_PLACE]
    ms = line_multiset(S[lay.site : lay.site + SITE], slot)
    k = rules.pl_k[p]
    if phase == ORDER:
        greedy_search(
            st, rules, T.geo, T.sp, w, salt, ws, np.int64(BY_ORDER), np.int64(slot), np.int64(p), np.int64(0), rec
        )
        for i in range(n):
            out[i] = rec[_order_index(ms, k, moves[i])]
        return
    q = _order_index(ms, k, S[G_ORDER])
    greedy_search(st, rules, T.geo, T.sp, w, salt, ws, np.int64(BY_PICK), np.int64(slot), np.int64(p), np.int64(q), rec)
    for i in range(n):
        out[i] = rec[moves[i] - PICK0 + 1]


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
    ended_by=ended_by_rules,  # no safety stop: a game that ends, ends by the rules
    move_scores=move_scores,
)


# --------------------------------------------------------------------------------------------------
# Python hooks


def observation(S: np.ndarray, T: Compiled, seat: int) -> np.ndarray:
    """What ``seat`` sees: ``S`` with each draw pile's cards sorted (their order is hidden)."""
    out = np.array(S, np.int64, copy=True)
    _sort_draw_piles(out, T)
    return out


def outcome_of_rows(rows: np.ndarray) -> Outcome:
    """:class:`Outcome` from :func:`~.rules.final_rows` (int64[n, 12], columns FINAL_COLUMNS)."""
    r = rows.tolist()
    components = {name: [row[j] for row in r] for j, name in enumerate(FINAL_COLUMNS[:6])}
    metrics = {
        name: [float(row[j]) for row in r]
        for j, name in ((8, "wasted_tiles"), (6, "empty_cells"), (9, "rulers_placed"), (10, "forced_discards"))
    }
    return Outcome(
        scores=[sum(row[:6]) for row in r],
        tiebreak=[(-row[6], row[7]) for row in r],
        components=components,
        metrics=metrics,
        turns=[row[11] for row in r],
    )


def outcome(S: np.ndarray, T: Compiled) -> Outcome:
    """Final scores (§6), achievements (§7), seat bonus (§6.5) and tie-break keys (§8) per seat."""
    return outcome_of_rows(_rows(S, T))


def _cell(c: int, size: int) -> str:
    return f"{c // size + 1},{c % size + 1}"


def turn_array(S: np.ndarray, T: Compiled, decisions: list[int]) -> np.ndarray:
    """The whole turn (a ``rules`` move array) that ``decisions`` (legal, in order) play from ``S``
    at the start of a turn: the inverse of :func:`turn_decisions` (the move codes' ranges are
    disjoint, so each decision says what it is). The district of an off-table free pick is 0."""
    mv = np.zeros(8, np.int64)
    first = int(decisions[0])
    if first == PASS:
        mv[0], mv[1] = FORCED, -1
        return mv
    mv[1] = first
    second = int(decisions[1])
    if second == FORCED_DISCARD:
        mv[0] = FORCED
        return mv
    if second < PLACE0:
        c, d = divmod(second - D4T0, 4)
        mv[0], mv[2], mv[3] = DISCARD_FOR_TILE, c, d + 1
        return mv
    p = second - PLACE0
    k = int(T.rules.pl_k[p])
    mv[0], mv[2] = PLACE, p
    orders = [int(d) for d in decisions[2:] if ORDER0 <= d < D4T0]
    picks = [int(d) for d in decisions[2:] if PICK0 <= d < PICK0 + 4]
    code = (
        orders[0] if orders else int(_order_code(int(line_multiset(S[T.lay.site : T.lay.site + SITE], first)), k, 0))
    ) - ORDER0
    for j in range(k):
        mv[3 + j] = code % 5
        code //= 5
    if picks:
        mv[7] = picks[0] - PICK0 + 1
    return mv


def describe_turn(S: np.ndarray, T: Compiled, mv: np.ndarray) -> str:
    """One transcript line for the whole turn ``mv`` (a ``rules`` move array) played from ``S``."""
    st = state_views(S, T.lay)
    rules = T.rules
    names = config_of(T).rulers.names
    size = T.geo.size
    kind, slot = int(mv[0]), int(mv[1])
    if slot < 0:
        return "finds no ruler left in any slot: the turn is lost"
    where = SLOT_NAMES[slot]
    shape = int(st.slots[slot])
    if kind == FORCED:
        return f"drafts {names[shape]} from the {where}: no legal placement, ruler and tiles discarded (§5)"
    if kind == DISCARD_FOR_TILE:
        r, c = divmod(int(mv[2]), size)
        return (
            f"drafts {names[shape]} from the {where} and discards it for a {LETTERS[int(mv[3])]} "
            f"at row {r + 1}, column {c + 1} (§9.2)"
        )
    p = int(mv[2])
    cells = [int(c) for c in rules.pl_cells[p, : rules.pl_k[p]]]
    put = ", ".join(f"{LETTERS[int(d)]}@{_cell(c, size)}" for c, d in zip(cells, mv[3 : 3 + len(cells)]))
    star = int(rules.pl_star[p])
    five = bool(rules.shape_five[shape])
    if five:
        put += (
            f"; free pick {LETTERS[int(mv[7])]}@{_cell(star, size)}"
            if star >= 0
            else "; free pick wasted off the table"
        )
    lost = (5 if five else 4) - len(cells) - (1 if star >= 0 else 0)
    return f"drafts {names[shape]} from the {where}: {put}" + (f" ({lost} wasted off the table)" if lost else "")


def describe_move(S: np.ndarray, T: Compiled, move: int) -> str:
    """One transcript line for decision ``move`` (before it is applied)."""
    st = state_views(S, T.lay)
    rules = T.rules
    names = config_of(T).rulers.names
    size = T.geo.size
    phase = int(st.g[G_PHASE])
    move = int(move)
    if phase == DRAFT:
        if move == PASS:
            return "finds no ruler left in any slot: the turn is lost"
        return f"drafts {names[int(st.slots[move])]} from the {SLOT_NAMES[move]}"
    if phase == PLACEMENT:
        if move == FORCED_DISCARD:
            return "no legal placement: ruler and tiles discarded (§5)"
        if move < PLACE0:
            c, d = divmod(move - D4T0, 4)
            return f"discards it for a {LETTERS[d + 1]} at row {c // size + 1}, column {c % size + 1} (§9.2)"
        p = move - PLACE0
        cells = [int(c) for c in rules.pl_cells[p, : rules.pl_k[p]]]
        star = int(rules.pl_star[p])
        text = "lays it on " + (", ".join(_cell(c, size) for c in cells) or "no cell but the star")
        if rules.shape_five[int(st.slots[int(st.g[G_SLOT])])]:
            text += f", star on {_cell(star, size)}" if star >= 0 else ", star off the table"
        return text
    if phase == ORDER:
        p = int(st.g[G_PLACE])
        code = move - ORDER0
        parts = []
        for c in rules.pl_cells[p, : rules.pl_k[p]]:
            parts.append(f"{LETTERS[code % 5]}@{_cell(int(c), size)}")
            code //= 5
        return "tiles " + ", ".join(parts)
    p = int(st.g[G_PLACE])
    return f"free pick {LETTERS[move - PICK0 + 1]}@{_cell(int(rules.pl_star[p]), size)}"


ENGINE = Engine(
    kernel=KERNEL,
    compile=compile_variant,
    new_state=new_state,
    n_players=lambda T: T.rules.n_players,
    max_moves=lambda T: T.max_moves,
    observation=observation,
    outcome=outcome,
    describe_move=describe_move,
    trajectory_buffer=trajectory_buffer,
    record_checkpoint=record_checkpoint,
)
"""Citywright's compiled interface, as the registry and the conformance suite see it."""
