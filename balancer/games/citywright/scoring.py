"""Citywright scoring (§6, §7, §8): a readable reference scorer and the fast bitboard scorer.

A drawing table is a flat int8 array of ``size * size`` cells in row-major order; a cell holds
0 (empty) or a district code: 1 residential, 2 commercial, 3 park, 4 industrial. "Touching" means
sharing an edge (§6). The reference scorer (:func:`score_reference`) follows the rulebook's words
and is what the tests read; the fast scorer (:func:`score_fast`) is what agents and the runner call;
tests check that the two agree on many random tables.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import intrinsic

from .config import DISTRICTS, CitywrightConfig

EMPTY, RES, COM, PARK, IND = 0, 1, 2, 3, 4
LETTERS = ".RCPI"
"""Character of each code in a drawn table (§2.3 districts)."""


class ScoreParams(NamedTuple):
    """Scoring numbers of a variant, flattened for compiled code (all in points unless said)."""

    size: int  # table side, cells (§2.1)
    res_largest_points: int  # §6.1
    res_largest_per: int  # §6.1 tiles per group of the largest cluster
    res_second_points: int  # §6.1 points per tile of the second-largest cluster
    com_isolated: int  # §6.2
    park_touching: int  # §6.3
    park_row: int  # §6.3
    park_col: int  # §6.3
    ind_ring: int  # §6.4
    com_count: np.ndarray  # int64[size*size+1]: tier + beyond points for N commercial tiles (§6.2)
    ind_count: np.ndarray  # int64[size*size+1]: group points for N industrial tiles (§6.4)


def score_params(cfg: CitywrightConfig) -> ScoreParams:
    """Flatten ``cfg.scoring`` for the compiled scorer and agents."""
    s = cfg.scoring
    size = cfg.table.size
    cells = size * size
    com = np.zeros(cells + 1, np.int64)
    ind = np.zeros(cells + 1, np.int64)
    for n in range(cells + 1):
        com[n] = commercial_count_points(cfg, n)
        ind[n] = s.industrial.per_group_points * (n // s.industrial.group_size)
    return ScoreParams(
        size,
        s.residential.largest_points,
        s.residential.largest_per_tiles,
        s.residential.second_points_per_tile,
        s.commercial.isolated,
        s.park.touching,
        s.park.per_row,
        s.park.per_column,
        s.industrial.ring,
        com,
        ind,
    )


def commercial_count_points(cfg: CitywrightConfig, n: int) -> int:
    """§6.2 points from the count alone: the highest tier reached plus 1 per tile beyond 15."""
    c = cfg.scoring.commercial
    tier = 0
    for t in c.tiers:
        if n >= t.at_least:
            tier = t.points
    return tier + c.per_tile_beyond * max(0, n - c.beyond)


# --------------------------------------------------------------------------- reference scorer


def _neighbours(size: int, r: int, c: int) -> list[tuple[int, int]]:
    return [
        (r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if 0 <= r + dr < size and 0 <= c + dc < size
    ]


def residential_clusters(grid: np.ndarray) -> list[int]:
    """Sizes (tiles) of the residential clusters of a 2-D grid, largest first (§6.1, Q7)."""
    size = grid.shape[0]
    seen = np.zeros_like(grid, dtype=bool)
    sizes = []
    for r in range(size):
        for c in range(size):
            if grid[r, c] == RES and not seen[r, c]:
                stack, n = [(r, c)], 0
                seen[r, c] = True
                while stack:
                    y, x = stack.pop()
                    n += 1
                    for ny, nx in _neighbours(size, y, x):
                        if grid[ny, nx] == RES and not seen[ny, nx]:
                            seen[ny, nx] = True
                            stack.append((ny, nx))
                sizes.append(n)
    return sorted(sizes, reverse=True)


def score_reference(cfg: CitywrightConfig, table: np.ndarray) -> dict[str, int]:
    """Score one drawing table by §6.1-§6.4, written to read like the rulebook.

    table: int8 array of size*size (or size x size) district codes. Returns points per district
    and ``empty_cells``; no achievements or seat bonus (those depend on the other players).
    """
    s = cfg.scoring
    size = cfg.table.size
    grid = np.asarray(table, dtype=np.int8).reshape(size, size)

    clusters = residential_clusters(grid)
    largest = clusters[0] if clusters else 0
    second = clusters[1] if len(clusters) > 1 else 0
    residential = (
        s.residential.largest_points * (largest // s.residential.largest_per_tiles)
        + s.residential.second_points_per_tile * second
    )

    n_com = int((grid == COM).sum())
    isolated = sum(
        1
        for r in range(size)
        for c in range(size)
        if grid[r, c] == COM and all(grid[y, x] != COM for y, x in _neighbours(size, r, c))
    )
    commercial = commercial_count_points(cfg, n_com) + s.commercial.isolated * isolated

    parks = [(r, c) for r in range(size) for c in range(size) if grid[r, c] == PARK]
    touching = sum(1 for r, c in parks if any(grid[y, x] in (RES, COM) for y, x in _neighbours(size, r, c)))
    rows = len({r for r, _ in parks})
    cols = len({c for _, c in parks})
    park = s.park.touching * touching + s.park.per_row * rows + s.park.per_column * cols

    ind = [(r, c) for r in range(size) for c in range(size) if grid[r, c] == IND]
    on_ring = sum(1 for r, c in ind if r in (0, size - 1) or c in (0, size - 1))
    industrial = s.industrial.ring * on_ring + s.industrial.per_group_points * (len(ind) // s.industrial.group_size)

    return {
        "residential": residential,
        "commercial": commercial,
        "park": park,
        "industrial": industrial,
        "empty_cells": int((grid == EMPTY).sum()),
    }


def parse_table(text: str, size: int) -> np.ndarray:
    """Read a drawn table: ``size`` lines of ``size`` characters from ``R C P I .`` (spaces ignored).

    Returns int8[size*size]. Raises ValueError naming the first bad line.
    """
    lines = [ln.replace(" ", "") for ln in text.strip("\n").splitlines() if ln.strip()]
    if len(lines) != size:
        raise ValueError(f"expected {size} lines of {size} cells, got {len(lines)} lines")
    out = np.zeros(size * size, np.int8)
    for r, line in enumerate(lines):
        if len(line) != size:
            raise ValueError(f"line {r + 1}: expected {size} cells, got {len(line)} ({line!r})")
        for c, ch in enumerate(line.upper()):
            if ch not in LETTERS:
                raise ValueError(f"line {r + 1}, column {c + 1}: {ch!r} is not one of R C P I .")
            out[r * size + c] = LETTERS.index(ch)
    return out


def draw_table(table: np.ndarray, size: int) -> str:
    """The inverse of :func:`parse_table`: ``size`` lines of ``R C P I .``, cells space-separated."""
    grid = np.asarray(table).reshape(size, size)
    return "\n".join(" ".join(LETTERS[v] for v in row) for row in grid)


# --------------------------------------------------------------------------- fast bitboard scorer


class PlacementFeatures(NamedTuple):
    """Per placement (a row of the rule table's placement table, ``Rules.pl_mask``), what the greedy
    search's bounds read of its cells: fixed by the placement and the table size, computed once
    per rule table (:func:`placement_features`)."""

    rows: np.ndarray  # int64[P]: the rows of its cells, bit r for row r
    cols: np.ndarray  # int64[P]: the columns of its cells, bit c for column c
    ring: np.ndarray  # int64[P]: its cells on the outer ring (§6.4)
    spread: np.ndarray  # uint64[P]: the cells touching its cells (orthogonally, §6), as a mask


def placement_features(pl_mask: np.ndarray, size: int) -> PlacementFeatures:
    """:class:`PlacementFeatures` of the placements ``pl_mask`` (uint64[P], cell masks of a
    ``size`` x ``size`` table, cell ``r * size + c``). Plain numpy (once per rule table), so loading
    a rule table loads no extra compiled code."""
    n_pl = pl_mask.shape[0]
    rows = np.zeros(n_pl, np.int64)
    cols = np.zeros(n_pl, np.int64)
    ring = np.zeros(n_pl, np.int64)
    near = np.zeros(n_pl, np.uint64)
    for c in range(size * size):
        on = ((pl_mask >> np.uint64(c)) & np.uint64(1)).astype(bool)
        r_, c_ = divmod(c, size)
        rows[on] |= 1 << r_
        cols[on] |= 1 << c_
        if r_ in (0, size - 1) or c_ in (0, size - 1):
            ring[on] += 1
        for touch, ok in ((c - size, r_ > 0), (c + size, r_ < size - 1), (c - 1, c_ > 0), (c + 1, c_ < size - 1)):
            if ok:
                near[on] |= np.uint64(1) << np.uint64(touch)
    return PlacementFeatures(rows, cols, ring, near)


class Geometry(NamedTuple):
    """Bit masks of a size x size table (cell r*size+c is bit r*size+c of a uint64)."""

    size: int
    full: np.uint64
    ring: np.uint64
    nbr: np.ndarray  # uint64[cells]: the cells touching each cell
    row_bit: np.ndarray  # int64[cells]: 1 << row
    col_bit: np.ndarray  # int64[cells]: 1 << column
    not_left: np.uint64  # cells not in column 0
    not_right: np.uint64  # cells not in the last column


def geometry(size: int) -> Geometry:
    """Precomputed masks for a table of side ``size`` (at most 8, so a table fits a uint64)."""
    if not 1 <= size <= 8:
        raise ValueError(f"table size must be 1..8, got {size}")
    cells = size * size
    nbr = np.zeros(cells, np.uint64)
    ring = 0
    not_left = not_right = 0
    for r in range(size):
        for c in range(size):
            i = r * size + c
            m = 0
            for y, x in _neighbours(size, r, c):
                m |= 1 << (y * size + x)
            nbr[i] = m
            if r in (0, size - 1) or c in (0, size - 1):
                ring |= 1 << i
            if c != 0:
                not_left |= 1 << i
            if c != size - 1:
                not_right |= 1 << i
    rows = np.array([1 << (i // size) for i in range(cells)], np.int64)
    cols = np.array([1 << (i % size) for i in range(cells)], np.int64)
    return Geometry(
        size, np.uint64((1 << cells) - 1), np.uint64(ring), nbr, rows, cols, np.uint64(not_left), np.uint64(not_right)
    )


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's ``ctpop`` on a uint64: one ``popcnt`` instruction where the processor has it."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)

    return types.uint64(types.uint64), codegen


@nb.njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:
    """Number of set bits of a uint64."""
    return int(_ctpop(np.uint64(x)))  # type: ignore[call-arg]  # numba passes the typing context itself


@nb.njit(cache=True, inline="always")
def spread(x, geo):
    """Cells touching any cell of mask ``x`` (not including ``x`` itself unless touched)."""
    s = np.uint64(geo.size)
    return (
        ((x << np.uint64(1)) & geo.not_left) | ((x >> np.uint64(1)) & geo.not_right) | (x << s) | (x >> s)
    ) & geo.full


@nb.njit(cache=True, inline="always")
def grow_cluster(seed, cells, geo):
    """The cluster of mask ``cells`` (cells joined by shared edges) that holds ``seed`` (a mask of
    cells of ``cells``, usually one): ``seed`` grown by its neighbours in ``cells`` until it stops."""
    comp = seed
    while True:
        grown = (comp | spread(comp, geo)) & cells
        if grown == comp:
            return comp
        comp = grown


@nb.njit(cache=True)
def table_masks(table):
    """Bit masks (residential, commercial, park, industrial) of a flat table."""
    m = np.zeros(5, np.uint64)
    for i in range(table.shape[0]):
        v = table[i]
        if v:
            m[v] |= np.uint64(1) << np.uint64(i)
    return m[1], m[2], m[3], m[4]


@nb.njit(cache=True)
def top_two_clusters(res, geo):
    """Sizes of the largest and second-largest residential clusters of mask ``res``."""
    a = 0
    b = 0
    rest = res
    while rest:
        comp = grow_cluster(rest & (~rest + np.uint64(1)), res, geo)
        rest &= ~comp
        n = popcount(comp)
        if n > a:
            b = a
            a = n
        elif n > b:
            b = n
    return a, b


@nb.njit(cache=True)
def score_masks(res, com, park, ind, geo, sp):
    """§6.1-§6.4 points (residential, commercial, park, industrial) from district masks."""
    a, b = top_two_clusters(res, geo)
    r_pts = sp.res_largest_points * (a // sp.res_largest_per) + sp.res_second_points * b
    n_com = popcount(com)
    isolated = popcount(com & ~spread(com, geo))
    c_pts = sp.com_count[n_com] + sp.com_isolated * isolated
    touching = popcount(park & spread(res | com, geo))
    rows = 0
    cols = 0
    x = park
    while x:
        low = x & (~x + np.uint64(1))
        i = popcount(low - np.uint64(1))
        rows |= geo.row_bit[i]
        cols |= geo.col_bit[i]
        x &= x - np.uint64(1)
    p_pts = (
        sp.park_touching * touching + sp.park_row * popcount(np.uint64(rows)) + sp.park_col * popcount(np.uint64(cols))
    )
    i_pts = sp.ind_ring * popcount(ind & geo.ring) + sp.ind_count[popcount(ind)]
    return r_pts, c_pts, p_pts, i_pts


@nb.njit(cache=True)
def score_fast(table, geo, sp):
    """§6.1-§6.4 points (residential, commercial, park, industrial) of a flat int8 table."""
    r, c, p, i = table_masks(table)
    return score_masks(r, c, p, i, geo, sp)


def score_table(cfg: CitywrightConfig, table: np.ndarray) -> dict[str, int]:
    """Points of one drawing table alone (no seat bonus), as ``balancer score`` prints them.

    Keys: residential, commercial, park, industrial, achievements (Versatile and Mastery need
    ruler ticks and Tree-lined the other tables, so a table alone scores 0), total, empty_cells.
    """
    geo = geometry(cfg.table.size)
    sp = score_params(cfg)
    flat = np.ascontiguousarray(np.asarray(table, dtype=np.int8).reshape(-1))
    parts = dict(zip(DISTRICTS, (int(v) for v in score_fast(flat, geo, sp))))
    parts["achievements"] = 0
    parts["total"] = sum(parts[d] for d in DISTRICTS)
    parts["empty_cells"] = int((flat == EMPTY).sum())
    return parts


@nb.njit(cache=True)
def score_all(tables, geo, sp):
    """§6.1-§6.4 points of every table: int64[n, 4] (residential, commercial, park, industrial)."""
    out = np.zeros((tables.shape[0], 4), np.int64)
    for s in range(tables.shape[0]):
        r, c, p, i = score_fast(tables[s], geo, sp)
        out[s, 0] = r
        out[s, 1] = c
        out[s, 2] = p
        out[s, 3] = i
    return out
