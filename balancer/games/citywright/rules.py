"""Citywright v1.1 rules (§3-§5, §9, §10): state, deals, placements and transitions.

Everything here is compiled with numba. The whole position is one int64 buffer ``S`` (see
:class:`Layout`); the rules read it through :class:`State`, a named tuple of views into ``S``
(:func:`views`), so a copy of a game is ``S.copy()`` and nothing is boxed while a game runs. Numbers
come from the config (via :func:`compile_rules`), never from this file; the fixed facts here are the
site board's geometry (§2.2: a 4x4 board, a slot at each end of each row and column, one at each
corner).

Slots (index: what it is -> the site cells it gives, §5 step 2):
  0-3   left end of row r        -> row r           4-7   right end of row r   -> row r
  8-11  top end of column c      -> column c        12-15 bottom end of column c -> column c
  16 top-left, 18 bottom-right   -> the diagonal 0, 5, 10, 15
  17 top-right, 19 bottom-left   -> the diagonal 3, 6, 9, 12
Edge slots hold four-cell rulers, corner slots five-cell rulers (§3.5).

A whole turn, as :func:`apply_move` plays it, is an int64[8]: ``[kind, slot, placement, d0, d1, d2,
d3, star]``. Players (and searches) do not write it: the compiled interface (``kernel.py``) takes a
turn as successive decisions of the same player and composes this array at the last one.
  kind 0 PLACE: draft ``slot``'s ruler and lay it as ``placement`` (a row of the placement table),
         the landed non-star cells receiving districts d0.. in order, the star cell ``star``.
  kind 1 FORCED: draft ``slot``'s ruler that has no legal placement; ruler and tiles are discarded.
         With ``slot`` -1 (legal only when every slot is empty, as when a variant's decks run dry):
         there is no ruler to draft and the turn is lost.
  kind 2 DISCARD_FOR_TILE (§9.2, two players): discard ``slot``'s corner ruler out of the game and
         put district d0 on empty cell ``placement``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from .config import CitywrightConfig
from .scoring import Geometry, ScoreParams, geometry, score_params

PLACE, FORCED, DISCARD_FOR_TILE = 0, 1, 2
N_SLOTS, N_EDGE, SITE = 20, 16, 16
STAT_WASTED, STAT_FORCED, STAT_PLACED, STAT_TURNS, STAT_TAKEN, STAT_D4T = range(6)
N_STATS = 6
G_ROUND, G_STEP, G_START, G_OVER, G_PHASE, G_SLOT, G_PLACE, G_ORDER = range(8)
N_G = 8
"""``g``: round, step within the round, start seat, game over; then the decisions already taken in the
turn under way (``kernel.py``): its phase, the drafted slot, the placement, the tile order."""


def _slot_lines() -> tuple[np.ndarray, np.ndarray]:
    lines = np.zeros((N_SLOTS, 4), np.int8)
    for r in range(4):
        lines[r] = lines[4 + r] = [r * 4 + j for j in range(4)]
        lines[8 + r] = lines[12 + r] = [j * 4 + r for j in range(4)]
    lines[16] = lines[18] = [0, 5, 10, 15]
    lines[17] = lines[19] = [3, 6, 9, 12]
    opposite = np.array([4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 18, 19, 16, 17], np.int8)
    return lines, opposite


SLOT_LINES, OPPOSITE = _slot_lines()
"""Site cells each slot gives (§5 step 2) and the slot at the other end of its line (§10.2)."""


class Rules(NamedTuple):
    """A variant compiled for one player count: every number the rules use, as arrays."""

    n_players: int
    rounds: int
    turns: int  # turns per player per round
    seat_bonus: np.ndarray  # int64[n] points (§6.5)
    n_shapes: int
    shape_five: np.ndarray  # int8[n_shapes]: 1 for a five-cell (corner) ruler
    pl_off: np.ndarray  # int64[n_shapes+1]: placements of shape s are rows pl_off[s]:pl_off[s+1]
    pl_mask: np.ndarray  # uint64[P]: cells the placement covers on the table
    pl_cells: np.ndarray  # int8[P, 4]: landed non-star cells (-1 padding)
    pl_k: np.ndarray  # int8[P]: number of landed non-star cells
    pl_star: np.ndarray  # int8[P]: the star cell, or -1 (off the table or a four-cell ruler)
    pl_adj: np.ndarray  # int8[P, 5]: per landed cell j (landed non-star cells, then the star),
    #   the placement's other landed cells touching it, as bits j
    deck4: np.ndarray  # int16[...]: four-cell deck composition, shape ids
    deck5: np.ndarray  # int16[...]: five-cell deck composition
    discard_for_tile: bool  # §9.2
    rival: bool  # §10.2
    ach_on: bool  # §7
    vers_k: int
    vers_pts: int
    mast_k: int
    mast_pts: int
    tree_pts: int
    tree_solo: int
    tree_zero_all: bool  # achievements.tree_lined.all_parks_zero: every_player (True) or no_one (False)


class State(NamedTuple):
    """One game in progress, as views into its buffer ``S`` (:func:`views`; every field int64, so
    writing a field writes ``S``). Seats are 0-based here (seat 1 of the rulebook is 0)."""

    tables: np.ndarray  # [n, size*size]: district codes, 0 empty
    site: np.ndarray  # [16]: the site board, district codes
    slots: np.ndarray  # [20]: shape id of the ruler in each slot, -1 empty
    dealt: np.ndarray  # [20]: shape dealt to each slot this round, -1 none
    gone: np.ndarray  # [20]: 1 where the dealt ruler left the game (§9.2)
    piles: np.ndarray  # [4, cap]: draw and discard piles: 0 draw4, 1 discard4, 2 draw5, 3 discard5
    #   (a pile's cards are piles[i, :pile_n[i]], its top card last)
    pile_n: np.ndarray  # [4]: cards in each pile
    ticks: np.ndarray  # [n, n_shapes]: rulers placed per shape (score-sheet ticks, §5 step 3)
    stats: (
        np.ndarray
    )  # [n, N_STATS]: wasted tiles, forced discards, rulers placed, turns, tiles taken, discards-for-tile
    g: np.ndarray  # [N_G]: round, step within round, start seat, game over, and the turn's pending decisions


class Layout(NamedTuple):
    """Where each :class:`State` field lives in the position buffer ``S`` (offsets into int64[size]).
    ``g`` is first (offset 0), so the seat to move and the turn's phase are read at fixed places."""

    n: int  # players
    cells: int  # cells of a drawing table
    n_shapes: int
    cap: int  # capacity of each pile
    tables: int
    site: int
    slots: int
    dealt: int
    gone: int
    piles: int
    pile_n: int
    ticks: int
    stats: int
    size: int  # length of S


def state_layout(rules: Rules, cells: int) -> Layout:
    """The :class:`Layout` of a game of ``rules`` on tables of ``cells`` cells."""
    n = rules.n_players
    cap = max(len(rules.deck4), len(rules.deck5), 1)
    sizes = (n * cells, SITE, N_SLOTS, N_SLOTS, N_SLOTS, 4 * cap, 4, n * rules.n_shapes, n * N_STATS)
    offsets = [N_G]
    for k in sizes:
        offsets.append(offsets[-1] + k)
    return Layout(n, cells, rules.n_shapes, cap, *offsets)


@nb.njit(cache=True)
def views(S, lay):
    """The :class:`State` of buffer ``S`` (int64[lay.size]): each field a view into ``S``."""
    n = lay.n
    return State(
        S[lay.tables : lay.tables + n * lay.cells].reshape((n, lay.cells)),
        S[lay.site : lay.site + SITE],
        S[lay.slots : lay.slots + N_SLOTS],
        S[lay.dealt : lay.dealt + N_SLOTS],
        S[lay.gone : lay.gone + N_SLOTS],
        S[lay.piles : lay.piles + 4 * lay.cap].reshape((4, lay.cap)),
        S[lay.pile_n : lay.pile_n + 4],
        S[lay.ticks : lay.ticks + n * lay.n_shapes].reshape((n, lay.n_shapes)),
        S[lay.stats : lay.stats + n * N_STATS].reshape((n, N_STATS)),
        S[0:N_G],
    )


def state_views(S: np.ndarray, lay: Layout) -> State:
    """:func:`views` in Python: numpy views into ``S`` (tests and tools set positions up through them)."""
    return views.py_func(S, lay)


def _sequence_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every multiset of 4 districts and every k = 0..4: the distinct ordered choices of k of
    its tiles (§5 "assign tiles freely": the tile assignments of a placement landing k non-star cells).

    Returns (ms_index int64[5,5,5,5] -> multiset id, seq int8[35, 5, 24, 4], n_seq int64[35, 5]);
    the sequences of each (multiset, k) are sorted.
    """
    ms_index = np.full((5, 5, 5, 5), -1, np.int64)
    seqs = np.zeros((35, 5, 24, 4), np.int8)
    n_seq = np.zeros((35, 5), np.int64)
    ms = 0
    for a in range(5):
        for b in range(5 - a):
            for c in range(5 - a - b):
                d = 4 - a - b - c
                ms_index[a, b, c, d] = ms
                counts = (a, b, c, d)
                for k in range(5):
                    found: set[tuple[int, ...]] = set()

                    def rec(prefix: tuple[int, ...], left: list[int]) -> None:
                        if len(prefix) == k:  # noqa: B023 (called within this iteration)
                            found.add(prefix)  # noqa: B023 (called within this iteration)
                            return
                        for dist in range(4):
                            if left[dist]:
                                left[dist] -= 1
                                rec(prefix + (dist + 1,), left)
                                left[dist] += 1

                    rec((), list(counts))
                    for i, sq in enumerate(sorted(found)):
                        seqs[ms, k, i, :k] = sq
                    n_seq[ms, k] = len(found)
                ms += 1
    return ms_index, seqs, n_seq


MS_INDEX, SEQS, N_SEQ = _sequence_table()


@nb.njit(cache=True)
def line_multiset(site, slot):
    """Id (into :data:`SEQS`) of the multiset of the 4 tiles ``slot``'s line gives (§5 step 2)."""
    c1 = 0
    c2 = 0
    c3 = 0
    for j in range(4):
        d = site[SLOT_LINES[slot, j]]
        if d == 1:
            c1 += 1
        elif d == 2:
            c2 += 1
        elif d == 3:
            c3 += 1
    return MS_INDEX[c1, c2, c3, 4 - c1 - c2 - c3]


def orientations(
    cells: list[tuple[int, int]], star: tuple[int, int] | None
) -> list[tuple[tuple[tuple[int, int], ...], tuple[int, int] | None]]:
    """The distinct rotations and reflections of a shape (§5: turn it freely, flip it either way).

    Each is (cells normalised to start at row 0 and column 0, sorted; star cell or None).
    """
    seen, out = set(), []
    for flip in (False, True):
        for rot in range(4):

            def tf(rc: tuple[int, int]) -> tuple[int, int]:
                r, c = rc
                if flip:  # noqa: B023 (called within this iteration)
                    c = -c
                for _ in range(rot):  # noqa: B023 (called within this iteration)
                    r, c = c, -r
                return r, c

            pts = [tf(p) for p in cells]
            r0, c0 = min(p[0] for p in pts), min(p[1] for p in pts)
            norm = tuple(sorted((r - r0, c - c0) for r, c in pts))
            st = None
            if star is not None:
                sr, sc = tf(star)
                st = (sr - r0, sc - c0)
            key = (norm, st)
            if key not in seen:
                seen.add(key)
                out.append(key)
    return out


def placement_table(
    cells: list[tuple[int, int]], star: tuple[int, int] | None, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every distinct way to lay a shape on the table: all orientations and positions with at
    least one cell landing (§5 step 3, overhang allowed). Placements that land the same cells
    (and the star on the same cell) are one placement.

    Returns (mask uint64[P], landed non-star cells int8[P,4], their count int8[P], star int8[P]).
    """
    found: dict[tuple[int, int], tuple[list[int], int]] = {}
    for norm, st in orientations(cells, star):
        h = max(p[0] for p in norm) + 1
        w = max(p[1] for p in norm) + 1
        for dr in range(-h + 1, size):
            for dc in range(-w + 1, size):
                landed, mask, star_cell = [], 0, -1
                for r, c in norm:
                    y, x = r + dr, c + dc
                    if 0 <= y < size and 0 <= x < size:
                        mask |= 1 << (y * size + x)
                        if st is not None and (r, c) == st:
                            star_cell = y * size + x
                        else:
                            landed.append(y * size + x)
                if mask and (mask, star_cell) not in found:
                    found[(mask, star_cell)] = (sorted(landed), star_cell)
    keys = sorted(found)
    masks = np.array([k[0] for k in keys], np.uint64)
    landed_cells = np.full((len(keys), 4), -1, np.int8)
    k = np.zeros(len(keys), np.int8)
    stars = np.zeros(len(keys), np.int8)
    for i, key in enumerate(keys):
        cells_i, star_i = found[key]
        landed_cells[i, : len(cells_i)] = cells_i
        k[i] = len(cells_i)
        stars[i] = star_i
    return masks, landed_cells, k, stars


def placement_adjacency(pl_cells: np.ndarray, pl_k: np.ndarray, pl_star: np.ndarray, nbr: np.ndarray) -> np.ndarray:
    """int8[P, 5]: for each placement and each of its landed cells j (the non-star cells in order, then
    the star if it lands), the bits jj of its landed cells that touch cell j (``nbr``: the table's
    neighbour masks). Lets the greedy search pair a placement's own tiles without the geometry."""
    out = np.zeros((len(pl_k), 5), np.int8)
    for i in range(len(pl_k)):
        landed = [int(c) for c in pl_cells[i, : pl_k[i]]] + ([int(pl_star[i])] if pl_star[i] >= 0 else [])
        for j, cj in enumerate(landed):
            out[i, j] = sum(1 << jj for jj, cjj in enumerate(landed) if int(nbr[cj]) >> cjj & 1)
    return out


def compile_rules(cfg: CitywrightConfig, n_players: int) -> tuple[Rules, Geometry, ScoreParams]:
    """Compile a variant for ``n_players`` (1-4). Raises ValueError for an unsupported count."""
    plan = cfg.round_plan(n_players)
    names = cfg.rulers.names
    specs = {**cfg.rulers.four_cell, **cfg.rulers.five_cell}
    size = cfg.table.size
    masks: list[np.ndarray] = []
    cells: list[np.ndarray] = []
    ks: list[np.ndarray] = []
    stars: list[np.ndarray] = []
    off = [0]
    for name in names:
        m, c, k, s = placement_table(specs[name].cells, specs[name].star, size)
        masks.append(m)
        cells.append(c)
        ks.append(k)
        stars.append(s)
        off.append(off[-1] + len(m))
    reduced = n_players == 2 and cfg.two_player.reduced_deck

    def deck(group: dict) -> np.ndarray:
        ids = []
        for name, spec in group.items():
            copies = spec.copies - (cfg.two_player.remove_copies.get(name, 0) if reduced else 0)
            ids += [names.index(name)] * max(0, copies)
        return np.array(ids, np.int16)

    a = cfg.achievements
    geo = geometry(size)
    pl_cells, pl_k, pl_star = np.concatenate(cells), np.concatenate(ks), np.concatenate(stars)
    rules = Rules(
        n_players=n_players,
        rounds=plan.rounds,
        turns=plan.turns,
        seat_bonus=np.array(cfg.seat_bonus[str(n_players)], np.int64),  # type: ignore[index]
        n_shapes=len(names),
        shape_five=np.array([1 if n in cfg.rulers.five_cell else 0 for n in names], np.int8),
        pl_off=np.array(off, np.int64),
        pl_mask=np.concatenate(masks),
        pl_cells=pl_cells,
        pl_k=pl_k,
        pl_star=pl_star,
        pl_adj=placement_adjacency(pl_cells, pl_k, pl_star, geo.nbr),
        deck4=deck(cfg.rulers.four_cell),
        deck5=deck(cfg.rulers.five_cell),
        discard_for_tile=bool(n_players == 2 and cfg.two_player.discard_for_tile),
        rival=bool(n_players == 1 and cfg.solo.rival_apprentice),
        ach_on=a.enabled,
        vers_k=a.versatile.distinct_shapes,
        vers_pts=a.versatile.points,
        mast_k=a.mastery.same_shape,
        mast_pts=a.mastery.points,
        tree_pts=a.tree_lined.points,
        tree_solo=a.tree_lined.solo_park_at_least,
        tree_zero_all=a.tree_lined.all_parks_zero == "every_player",
    )
    return rules, geo, score_params(cfg)


# --------------------------------------------------------------------------- compiled transitions


@nb.njit(cache=True)
def placement_fits(rules, p, filled):
    """§5 Commit, the one placement legality (the kernel's legal moves and the greedy search both ask
    it): placement ``p`` (a row of the placement table: a shape turned and flipped, its on-table
    cells, at least 1, overhang dropped) fits a table whose non-empty cells are the bit mask
    ``filled`` when every cell it covers is empty (no overwriting)."""
    return rules.pl_mask[p] & filled == 0


@nb.njit(cache=True, inline="always")
def below(rng, n):
    """A uniform integer in [0, n) drawn from ``rng`` (one double; bias below 2^-40 for n < 2^13)."""
    return min(int(rng.random() * n), n - 1)


@nb.njit(cache=True)
def _shuffle_pile(piles, pile_n, src, dst, rng):
    """Shuffle discard pile ``src`` into draw pile ``dst`` (Q6)."""
    n = pile_n[src]
    base = pile_n[dst]
    for i in range(n):
        piles[dst, base + i] = piles[src, i]
    pile_n[dst] = base + n
    pile_n[src] = 0
    total = pile_n[dst]
    for i in range(total - 1, 0, -1):
        j = below(rng, i + 1)
        t = piles[dst, i]
        piles[dst, i] = piles[dst, j]
        piles[dst, j] = t


@nb.njit(cache=True)
def _draw(piles, pile_n, draw, disc, rng):
    """Top card of a deck, reshuffling its discard pile if needed; -1 when none is left (§4.2)."""
    if pile_n[draw] == 0:
        if pile_n[disc] == 0:
            return -1
        _shuffle_pile(piles, pile_n, disc, draw, rng)
    pile_n[draw] -= 1
    return piles[draw, pile_n[draw]]


@nb.njit(cache=True)
def _fill_site(site, rng):
    """§3.4 and §4.2: 4 tiles of each district mixed in the bag, drawn into the 16 cells."""
    for i in range(SITE):
        site[i] = 1 + i // 4
    for i in range(SITE - 1, 0, -1):
        j = below(rng, i + 1)
        t = site[i]
        site[i] = site[j]
        site[j] = t


@nb.njit(cache=True)
def _deal(st, rng):
    """§3.5 and §4.2: 16 four-cell rulers to the edges, 4 five-cell rulers to the corners."""
    for s in range(N_SLOTS):
        if s < N_EDGE:
            card = _draw(st.piles, st.pile_n, 0, 1, rng)
        else:
            card = _draw(st.piles, st.pile_n, 2, 3, rng)
        st.slots[s] = card
        st.dealt[s] = card
        st.gone[s] = 0


@nb.njit(cache=True)
def _cleanup(st, rng):
    """§4.2 Cleanup: every ruler of the round, taken or not, to its deck's discard pile; refill the
    site board; deal fresh rulers; pass the start-player marker clockwise."""
    for s in range(N_SLOTS):
        card = st.dealt[s]
        if card >= 0 and st.gone[s] == 0:
            pile = 1 if s < N_EDGE else 3
            st.piles[pile, st.pile_n[pile]] = card
            st.pile_n[pile] += 1
    _fill_site(st.site, rng)
    _deal(st, rng)


@nb.njit(cache=True)
def setup(st, deck4, deck5, rng):
    """§3 Setup on a zeroed state: shuffle both decks, fill the site board, deal the slots."""
    st.pile_n[:] = 0
    for i in range(deck4.shape[0]):
        st.piles[1, i] = deck4[i]
    st.pile_n[1] = deck4.shape[0]
    for i in range(deck5.shape[0]):
        st.piles[3, i] = deck5[i]
    st.pile_n[3] = deck5.shape[0]
    _shuffle_pile(st.piles, st.pile_n, 1, 0, rng)
    _shuffle_pile(st.piles, st.pile_n, 3, 2, rng)
    _fill_site(st.site, rng)
    _deal(st, rng)


@nb.njit(cache=True)
def current_seat(st, n_players):
    """The seat (0-based) to move: §4.2, clockwise from the start player, around and around."""
    return (st.g[G_START] + st.g[G_STEP]) % n_players


@nb.njit(cache=True)
def filled_mask(table):
    """Bit mask of the non-empty cells of a flat table."""
    m = np.uint64(0)
    for i in range(table.shape[0]):
        if table[i]:
            m |= np.uint64(1) << np.uint64(i)
    return m


@nb.njit(cache=True)
def apply_move(st, rules, mv, rng):
    """Play move ``mv`` for the seat to move, then advance the turn (cleanup between rounds).

    Does not check legality (``kernel.legal`` lists the legal decisions). Tiles that land off the table, and the tiles
    of a forced discard, count as wasted (§5). Returns nothing; mutates ``st``.
    """
    n = rules.n_players
    seat = current_seat(st, n)
    kind = mv[0]
    slot = mv[1]
    if slot < 0:
        # no ruler left in any slot (decks too small for the round): the turn is lost
        # (rulers.no_ruler_left: turn_lost, assumed; the only choice the config model allows)
        _advance(st, rules, seat, rng)
        return
    shape = st.slots[slot]
    table = st.tables[seat]
    five = rules.shape_five[shape]
    ntiles = 5 if five else 4
    if kind == PLACE:
        p = mv[2]
        k = rules.pl_k[p]
        for j in range(k):
            table[rules.pl_cells[p, j]] = mv[3 + j]
        landed = k
        if rules.pl_star[p] >= 0:
            table[rules.pl_star[p]] = mv[7]
            landed += 1
        st.stats[seat, STAT_WASTED] += ntiles - landed
        st.stats[seat, STAT_TAKEN] += ntiles
        st.stats[seat, STAT_PLACED] += 1
        st.ticks[seat, shape] += 1
    elif kind == FORCED:
        st.stats[seat, STAT_WASTED] += ntiles
        st.stats[seat, STAT_TAKEN] += ntiles
        st.stats[seat, STAT_FORCED] += 1
    else:
        table[mv[2]] = mv[3]
        st.stats[seat, STAT_TAKEN] += 1
        st.stats[seat, STAT_D4T] += 1
        st.gone[slot] = 1
    st.slots[slot] = -1
    if rules.rival:
        st.slots[OPPOSITE[slot]] = -1
    _advance(st, rules, seat, rng)


@nb.njit(cache=True)
def _advance(st, rules, seat, rng):
    """End ``seat``'s turn: next player, or cleanup and a new round, or the end of the game (§4.2)."""
    n = rules.n_players
    st.stats[seat, STAT_TURNS] += 1
    st.g[G_STEP] += 1
    if st.g[G_STEP] == n * rules.turns:
        st.g[G_STEP] = 0
        st.g[G_ROUND] += 1
        if st.g[G_ROUND] == rules.rounds:
            st.g[G_OVER] = 1
        else:
            st.g[G_START] = (st.g[G_START] + 1) % n
            _cleanup(st, rng)


@nb.njit(cache=True)
def any_ruler(st):
    """True when at least one slot holds a ruler."""
    for s in range(N_SLOTS):
        if st.slots[s] >= 0:
            return True
    return False


FINAL_COLUMNS = (
    "residential",
    "commercial",
    "park",
    "industrial",
    "achievements",
    "seat_bonus",
    "empty_cells",
    "distinct_shapes",
    "wasted_tiles",
    "rulers_placed",
    "forced_discards",
    "turns",
)
"""Columns of :func:`final_rows`."""


@nb.njit(cache=True)
def final_rows(st, rules, pts):
    """End-of-game accounting per seat, int64[n, 12] with :data:`FINAL_COLUMNS`: the district points
    ``pts`` (int64[n, 4], §6.1-§6.4), achievements (§7: Versatile and Mastery from the ruler ticks,
    Tree-lined for every player tied for the highest Park subtotal, solo a Park of at least the
    threshold), seat bonus (§6.5), the §8 tie-break counts and the play metrics."""
    n = rules.n_players
    out = np.zeros((n, len(FINAL_COLUMNS)), np.int64)
    top_park = 0
    for s in range(n):
        top_park = max(top_park, pts[s, 2])
    for s in range(n):
        for j in range(4):
            out[s, j] = pts[s, j]
        distinct = 0
        most = 0
        for k in range(rules.n_shapes):
            if st.ticks[s, k] > 0:
                distinct += 1
            most = max(most, st.ticks[s, k])
        ach = 0
        if rules.ach_on:
            if distinct >= rules.vers_k:
                ach += rules.vers_pts
            if most >= rules.mast_k:
                ach += rules.mast_pts
            # every Park subtotal 0 (top_park 0): all tie for the highest and get it, or nobody leads and
            # nobody does (achievements.tree_lined.all_parks_zero: every_player / no_one)
            if (
                (pts[s, 2] >= rules.tree_solo)
                if n == 1
                else (pts[s, 2] == top_park and (top_park > 0 or rules.tree_zero_all))
            ):
                ach += rules.tree_pts
        empty = 0
        for c in range(st.tables.shape[1]):
            if st.tables[s, c] == 0:
                empty += 1
        out[s, 4] = ach
        out[s, 5] = rules.seat_bonus[s]
        out[s, 6] = empty
        out[s, 7] = distinct
        out[s, 8] = st.stats[s, STAT_WASTED]
        out[s, 9] = st.stats[s, STAT_PLACED]
        out[s, 10] = st.stats[s, STAT_FORCED]
        out[s, 11] = st.stats[s, STAT_TURNS]
    return out
