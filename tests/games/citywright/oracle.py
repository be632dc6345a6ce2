"""An exhaustive greedy oracle written from the rulebook (shared/rules/citywright-v1.1.txt), for tests.

It answers one question: of every legal turn of the seat to move, which are best by the rule the
greedy agent documents (:mod:`balancer.games.citywright.agents`): the largest weighted gain in the
mover's total this turn, its districts (§6.1-§6.4) and achievements (§7) included, then the tie-break
(2 x tiles landed + 1 for a newly ticked shape: §8's fewer empty cells, then more distinct shapes).

What it takes from the code and what it does not:

- the legal turns are the compiled interface's (``turns.all_turn_decisions`` walks ``legal`` and
  ``apply``), whose legality the rule tests (``test_rules.py``) check from the rulebook; the table a
  turn leaves is read from the position after it is played;
- everything that values a turn is written here from the rulebook and the variant's YAML numbers
  (``cfg.scoring``, ``cfg.achievements``): clusters by flood fill, commercial tiers, parks, industry,
  Versatile, Mastery, and Tree-lined with its ruling ``achievements.tree_lined.all_parks_zero``
  (every Park subtotal 0: ``every_player`` reads Q10, all tied for the highest get it; ``no_one``
  reads §10.3's "no table to lead", nobody does). Nothing of ``scoring.py``, ``greedy.py`` or
  ``rules.final_rows`` is imported.

Plain Python and slow (about a millisecond a turn): use it on positions with a few hundred turns.
"""

from __future__ import annotations

import numpy as np
from turns import all_turn_decisions, play_decisions

from balancer.games.citywright.config import CitywrightConfig
from balancer.games.citywright.kernel import PLACE0

EMPTY, RES, COM, PARK, IND = 0, 1, 2, 3, 4
EPS = 1e-9


def _neighbours(c: int, size: int) -> list[int]:
    """Cells sharing an edge with ``c`` (§6: diagonal contact never counts)."""
    r, k = divmod(c, size)
    out = []
    if r > 0:
        out.append(c - size)
    if r < size - 1:
        out.append(c + size)
    if k > 0:
        out.append(c - 1)
    if k < size - 1:
        out.append(c + 1)
    return out


def _clusters(table: list[int], size: int, district: int) -> list[int]:
    """Sizes of the maximal edge-connected groups of ``district`` tiles (Q7), largest first."""
    seen: set[int] = set()
    sizes = []
    for start, d in enumerate(table):
        if d != district or start in seen:
            continue
        seen.add(start)
        stack, n = [start], 0
        while stack:
            c = stack.pop()
            n += 1
            for o in _neighbours(c, size):
                if table[o] == district and o not in seen:
                    seen.add(o)
                    stack.append(o)
        sizes.append(n)
    return sorted(sizes, reverse=True)


def district_points(cfg: CitywrightConfig, table: np.ndarray) -> list[int]:
    """§6.1-§6.4 points of one drawing table (int cells: 0 empty, 1 R, 2 C, 3 P, 4 I), as
    [residential, commercial, park, industrial]."""
    size = cfg.table.size
    t = [int(x) for x in table]
    sc = cfg.scoring
    # §6.1: largest cluster +largest_points per largest_per_tiles tiles, rounded down; the second
    # largest size x second_points_per_tile (a tie for largest: one of them scores as second)
    cl = _clusters(t, size, RES)
    res = 0
    if cl:
        res += sc.residential.largest_points * (cl[0] // sc.residential.largest_per_tiles)
    if len(cl) > 1:
        res += sc.residential.second_points_per_tile * cl[1]
    # §6.2: the tier of N, +per tile beyond, +isolated per commercial tile touching no other
    n_c = t.count(COM)
    com = 0
    for tier in sc.commercial.tiers:
        if n_c >= tier.at_least:
            com = tier.points
    com += sc.commercial.per_tile_beyond * max(0, n_c - sc.commercial.beyond)
    for c, d in enumerate(t):
        if d == COM and all(t[o] != COM for o in _neighbours(c, size)):
            com += sc.commercial.isolated
    # §6.3: +touching per park next to a residential or commercial tile; +per row / column with a park
    park = 0
    rows, cols = set(), set()
    for c, d in enumerate(t):
        if d == PARK:
            rows.add(c // size)
            cols.add(c % size)
            if any(t[o] in (RES, COM) for o in _neighbours(c, size)):
                park += sc.park.touching
    park += sc.park.per_row * len(rows) + sc.park.per_column * len(cols)
    # §6.4: +ring per industrial tile on the outer ring; +per_group_points per group_size tiles
    ind = 0
    for c, d in enumerate(t):
        r, k = divmod(c, size)
        if d == IND and (r in (0, size - 1) or k in (0, size - 1)):
            ind += sc.industrial.ring
    ind += sc.industrial.per_group_points * (t.count(IND) // sc.industrial.group_size)
    return [res, com, park, ind]


def achievement_points(cfg: CitywrightConfig, ticks: np.ndarray, parks: list[int], seat: int) -> int:
    """§7 points of ``seat``: Versatile (distinct shapes ticked), Mastery (one shape ticked often
    enough), Tree-lined (the highest Park subtotal, ties all get it (Q10); solo a Park subtotal of at
    least the threshold (§10.3); every subtotal 0: the ruling ``all_parks_zero``)."""
    a = cfg.achievements
    if not a.enabled:
        return 0
    pts = 0
    if sum(1 for x in ticks[seat] if x > 0) >= a.versatile.distinct_shapes:
        pts += a.versatile.points
    if max(int(x) for x in ticks[seat]) >= a.mastery.same_shape:
        pts += a.mastery.points
    tree = a.tree_lined
    if len(parks) == 1:
        holds = parks[0] >= tree.solo_park_at_least
    else:
        top = max(parks)
        holds = parks[seat] == top and (top > 0 or tree.all_parks_zero == "every_player")
    if holds:
        pts += tree.points
    return pts


def turn_key(cfg: CitywrightConfig, game, turn: tuple[int, ...], weights: np.ndarray) -> tuple[float, int]:
    """(weighted gain of the mover's total, tie-break) of the turn whose decisions are ``turn``.
    ``weights``: residential, commercial, park, industrial, achievements (the agent's)."""
    seat = int(game.seat_to_move)
    n = game.rules.n_players
    tables = [np.array(game.state.tables[s]) for s in range(n)]
    ticks = np.array(game.state.ticks)
    shape = int(game.state.slots[turn[0]]) if turn[0] < 20 else -1
    placed = len(turn) > 1 and turn[1] >= PLACE0  # a placement lands at least 1 tile (§5, Q12)
    new_shape = int(placed and ticks[seat, shape] == 0)
    after = play_decisions(game.copy(), turn)
    table_after = np.array(after.state.tables[seat])
    ticks_after = ticks.copy()
    if placed:
        ticks_after[seat, shape] += 1  # §5 Record it: tick the ruler's shape
    before_pts = [district_points(cfg, t) for t in tables]
    mine_after = district_points(cfg, table_after)
    parks_before = [p[2] for p in before_pts]
    parks_after = list(parks_before)
    parks_after[seat] = mine_after[2]
    gain = sum(float(w) * (a - b) for w, a, b in zip(weights[:4], mine_after, before_pts[seat]))
    gain += float(weights[4]) * (
        achievement_points(cfg, ticks_after, parks_after, seat) - achievement_points(cfg, ticks, parks_before, seat)
    )
    landed = int((tables[seat] == 0).sum()) - int((table_after == 0).sum())
    return gain, 2 * landed + new_shape


def best_turns(cfg: CitywrightConfig, game, weights: np.ndarray) -> tuple[tuple[float, int], dict]:
    """The best key over every legal turn, and every turn's key (decisions -> key)."""
    keys = {t: turn_key(cfg, game, t, weights) for t in all_turn_decisions(game)}
    best_gain = max(k[0] for k in keys.values())
    best_tie = max(k[1] for k in keys.values() if abs(k[0] - best_gain) < EPS)
    return (best_gain, best_tie), keys


def is_best(key: tuple[float, int], best: tuple[float, int]) -> bool:
    return abs(key[0] - best[0]) < EPS and key[1] == best[1]
