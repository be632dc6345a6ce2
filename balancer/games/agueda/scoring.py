"""Águeda final scoring ("Game End & Final Scoring", "Winning the Game", "Solo Mode: Game End & Scoring").

Two versions: a readable reference (:func:`shop_points_reference`, :func:`final_reference`) that
follows the rulebook's and the shop-card vocabulary's words on a plain Python board, and the
compiled one (:func:`shop_points`, :func:`final_rows`) that the runner and the agents call. Tests
check that they agree on many random boards.

A board here is int8[3, row_length]: a colour code per space, -1 empty; filled spaces are always a
prefix of each row (Place Umbrellas: from the leftmost empty space, without skipping).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .config import AguedaConfig
from .rules import (
    G_AI_PTS,
    ROWS,
    SK_ADJACENT,
    SK_COINS,
    SK_COMPLETED,
    SK_ROWS_WITH,
    SK_TOURISTS,
    SK_UMBRELLAS,
    SK_VARIED,
    ST_ATTRACTED,
    ST_BREAKS,
    ST_COINS_GAINED,
    ST_COINS_SPENT,
    ST_RETURNED,
    ST_TOURIST_PTS,
    ST_TURNS,
)

COMPONENTS: tuple[str, ...] = ("tourists", "mural", "shops", "empty_spaces")
"""Score components (points by source), in the order of the columns of :func:`final_rows`."""
(
    F_TOURISTS,
    F_MURAL,
    F_SHOPS,
    F_EMPTY,
    F_EMPTY_COUNT,
    F_MURAL_TILES,
    F_COINS,
    F_TURNS,
    F_COINS_GAINED,
    F_COINS_SPENT,
    F_RETURNED,
    F_ATTRACTED,
    F_BREAKS,
    F_SHOP1,
    F_SHOP2,
) = range(15)
N_FINAL = 15


# --------------------------------------------------------------------------- reference scorer


def shop_points_reference(
    cfg: AguedaConfig, card: int, marked: set[int], board: list[list[int]], coins: int, tourists: int
) -> int:
    """Points of shop card ``card`` (index in ``cfg.shops.cards``) for one player: ``marked`` the
    colour codes of its shop markers, ``board`` rows of colour codes (-1 empty), ``coins`` left,
    ``tourists`` standing on tourist tiles. The vocabulary is :data:`config.SHOP_KINDS`."""
    spec = cfg.shops.cards[card]
    rows = [[c for c in row if c >= 0] for row in board]
    if spec.kind == "umbrellas":
        pts = spec.points * (sum(1 for row in rows for c in row if c in marked) // spec.per)
    elif spec.kind == "rows_with":
        pts = spec.points * sum(1 for row in rows if sum(c in marked for c in row) >= spec.at_least)
    elif spec.kind == "adjacent_pairs":
        pts = spec.points * sum(
            1 for row in rows for a, b in zip(row, row[1:]) if a == b and (not spec.markers or a in marked)
        )
    elif spec.kind == "varied_rows":
        pts = spec.points * sum(1 for row in rows if len(set(row)) >= spec.at_least)
    elif spec.kind == "completed_rows":
        pts = spec.points * sum(1 for row in rows if len(row) == cfg.board.row_length)
    elif spec.kind == "coins":
        pts = spec.points * (coins // spec.per)
    else:  # tourists
        pts = spec.points * (tourists // spec.per)
    return pts if spec.max_points is None else min(pts, spec.max_points)


def final_reference(
    cfg: AguedaConfig,
    board: list[list[int]],
    flipped: int,
    tourist_points: int,
    shops: list[tuple[int, set[int]]],
    coins: int,
    tourists: int,
) -> dict[str, int]:
    """One player's final score by source (Final Scoring 1-3): tourists (scored during play),
    mural (by flipped tiles), shops (each card in ``shops``: (card index, marked colours)), and
    empty spaces (points per empty space). Returns the components and ``total``."""
    mural = 0
    for at, pts in sorted(cfg.mural.points.items()):
        if flipped >= at:
            mural = pts
    shop = sum(shop_points_reference(cfg, card, marked, board, coins, tourists) for card, marked in shops)
    empty = sum(1 for row in board for c in row if c < 0) * cfg.scoring.empty_space
    out = {"tourists": tourist_points, "mural": mural, "shops": shop, "empty_spaces": empty}
    out["total"] = sum(out.values())
    return out


# --------------------------------------------------------------------------- compiled scorer


@nb.njit(cache=True, inline="always")
def row_raw(kind, mask, marked_only, board_row, n):
    """What one board row (its first ``n`` spaces filled) contributes to a shop card of ``kind``
    before the card's arithmetic: umbrellas and rows_with: umbrellas of a marked colour (bits of
    ``mask``); adjacent_pairs: side-by-side pairs of one colour (marked only if ``marked_only``);
    varied_rows: the bit set of its colours; completed_rows: ``n``; coins and tourists: 0."""
    if kind == SK_UMBRELLAS or kind == SK_ROWS_WITH:
        out = 0
        for j in range(n):
            out += (mask >> board_row[j]) & 1
        return out
    if kind == SK_ADJACENT:
        out = 0
        for j in range(1, n):
            a = board_row[j]
            if a == board_row[j - 1] and (not marked_only or (mask >> a) & 1):
                out += 1
        return out
    if kind == SK_VARIED:
        out = 0
        for j in range(n):
            out |= 1 << board_row[j]
        return out
    if kind == SK_COMPLETED:
        return n
    return 0


@nb.njit(cache=True, inline="always")
def _popcount(x):
    n = 0
    while x:
        n += x & 1
        x >>= 1
    return n


@nb.njit(cache=True, inline="always")
def card_points(kind, points, per, at_least, cap, row_len, raw0, raw1, raw2, coins, tourists):
    """A shop card's points from the three rows' :func:`row_raw` values, coins left and tourists on
    tourist tiles (the vocabulary of config.SHOP_KINDS; ``cap`` -1 for none)."""
    if kind == SK_COINS:
        units = coins // per
    elif kind == SK_TOURISTS:
        units = tourists // per
    elif kind == SK_UMBRELLAS:
        units = (raw0 + raw1 + raw2) // per
    elif kind == SK_ADJACENT:
        units = raw0 + raw1 + raw2
    elif kind == SK_ROWS_WITH:
        units = (raw0 >= at_least) + (raw1 >= at_least) + (raw2 >= at_least)
    elif kind == SK_VARIED:
        units = (_popcount(raw0) >= at_least) + (_popcount(raw1) >= at_least) + (_popcount(raw2) >= at_least)
    else:  # SK_COMPLETED
        units = (raw0 == row_len) + (raw1 == row_len) + (raw2 == row_len)
    pts = points * units
    if cap >= 0 and pts > cap:
        pts = cap
    return pts


@nb.njit(cache=True)
def shop_points(rules, card, mask, board, fill, coins, tourists):
    """Compiled :func:`shop_points_reference`: ``board`` int8[3, L] with ``fill`` int64[3] filled
    spaces per row, ``mask`` the marked colours as bits."""
    kind = rules.card_kind[card]
    marked = rules.card_markers[card] > 0
    r0 = row_raw(kind, mask, marked, board[0], fill[0])
    r1 = row_raw(kind, mask, marked, board[1], fill[1])
    r2 = row_raw(kind, mask, marked, board[2], fill[2])
    return card_points(
        kind,
        rules.card_points[card],
        rules.card_per[card],
        rules.card_at_least[card],
        rules.card_max[card],
        rules.row_len,
        r0,
        r1,
        r2,
        coins,
        tourists,
    )


@nb.njit(cache=True)
def final_rows(st, rules):
    """Final scoring of every seat: int64[n, N_FINAL], columns F_* (the first four are
    :data:`COMPONENTS`, which sum to the score; then empty-space count, flipped mural tiles, coins,
    turns, coins gained, coins spent, umbrellas returned to the bag, tourists attracted, breaks,
    and the two shop cards' points)."""
    n = rules.n_players
    out = np.zeros((n, N_FINAL), np.int64)
    for s in range(n):
        flipped = 0
        for c in range(rules.n_colours):
            flipped += st.flipped[s, c]
        empty = 0
        for r in range(ROWS):
            empty += rules.row_len - st.fill[s, r]
        tourists = np.int64(0)  # not a literal 0: numba compiled shop_points for Literal[int](0) too (issue 47)
        for r in range(ROWS):
            tourists += st.occ[s, r]
        p1 = shop_points(rules, st.shops[0], st.shop_mask[0], st.board[s], st.fill[s], st.coins[s], tourists)
        p2 = shop_points(rules, st.shops[1], st.shop_mask[1], st.board[s], st.fill[s], st.coins[s], tourists)
        out[s, F_TOURISTS] = st.stats[s, ST_TOURIST_PTS]
        out[s, F_MURAL] = rules.mural_pts[flipped]
        out[s, F_SHOPS] = p1 + p2
        out[s, F_EMPTY] = rules.empty_pts * empty
        out[s, F_EMPTY_COUNT] = empty
        out[s, F_MURAL_TILES] = flipped
        out[s, F_COINS] = st.coins[s]
        out[s, F_TURNS] = st.stats[s, ST_TURNS]
        out[s, F_COINS_GAINED] = st.stats[s, ST_COINS_GAINED]
        out[s, F_COINS_SPENT] = st.stats[s, ST_COINS_SPENT]
        out[s, F_RETURNED] = st.stats[s, ST_RETURNED]
        out[s, F_ATTRACTED] = st.stats[s, ST_ATTRACTED]
        out[s, F_BREAKS] = st.stats[s, ST_BREAKS]
        out[s, F_SHOP1] = p1
        out[s, F_SHOP2] = p2
    return out


@nb.njit(cache=True)
def ai_score(st, rules):
    """Solo Mode, Game End & Scoring 1: the AI's tour-guide points plus its Solo End Game Scoring
    card at the chosen difficulty (flat points, points per umbrella taken, points per colour group
    of at least ``ai_group_k`` umbrellas)."""
    total = 0
    groups = 0
    for c in range(rules.n_colours):
        total += st.ai[c]
        if st.ai[c] >= rules.ai_group_k:
            groups += 1
    return st.g[G_AI_PTS] + rules.ai_points + rules.ai_per_umbrella * total + rules.ai_group_pts * groups


# --------------------------------------------------------------------------- `balancer score`

BOARD_TEXT_HELP = """A final board as text: one line per board row, one colour initial per space ('.' empty,
spaces between cells optional), then optional lines `mural N` (flipped mural tiles), `tourist_points N`
(points tourists scored during play), `tourists N` (tourists standing on tourist tiles), `coins N`,
and one `shop NAME` or `shop NAME: colour, colour` line per shop card in play (its marker colours)."""


def parse_board_text(
    cfg: AguedaConfig, text: str
) -> tuple[list[list[int]], dict[str, int], list[tuple[int, set[int]]]]:
    """Read :data:`BOARD_TEXT_HELP`'s format. Returns (rows of colour codes with -1 for empty,
    counts {mural, tourist_points, tourists, coins}, shop cards [(index, marked colour codes)]).
    Raises ValueError naming the first bad line."""
    initials = [c[0].upper() for c in cfg.umbrellas.colours]
    if len(set(initials)) != len(initials):
        raise ValueError(f"the colour names' initials {initials} are not unique; a board cannot be read as letters")
    names = [c.name for c in cfg.shops.cards]
    L = cfg.board.row_length
    rows: list[list[int]] = []
    counts = {"mural": 0, "tourist_points": 0, "tourists": 0, "coins": 0}
    shops: list[tuple[int, set[int]]] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        if word in counts:
            if not rest.strip().isdigit():
                raise ValueError(f"line {no}: `{word}` takes a whole number, got {rest.strip()!r}")
            counts[word] = int(rest)
        elif word == "shop":
            name, _, colours = rest.partition(":")
            if name.strip() not in names:
                raise ValueError(f"line {no}: unknown shop card {name.strip()!r}; known: {', '.join(names)}")
            marked = set()
            for c in filter(None, (c.strip() for c in colours.split(","))):
                if c not in cfg.umbrellas.colours:
                    raise ValueError(f"line {no}: unknown colour {c!r}; colours: {', '.join(cfg.umbrellas.colours)}")
                marked.add(cfg.colour(c))
            shops.append((names.index(name.strip()), marked))
        else:
            cells = line.replace(" ", "").upper()
            if len(cells) != L or set(cells) - set(initials) - {"."}:
                raise ValueError(f"line {no}: a board row is {L} of {' '.join(initials)} . ; got {line!r}")
            row = [initials.index(ch) if ch != "." else -1 for ch in cells]
            if "." in cells.rstrip("."):
                raise ValueError(f"line {no}: a row fills from the left without gaps (Place Umbrellas); got {line!r}")
            rows.append(row)
    if len(rows) != 3:
        raise ValueError(f"expected 3 board rows, got {len(rows)}")
    if counts["mural"] > len(cfg.umbrellas.colours):
        raise ValueError(f"mural: at most {len(cfg.umbrellas.colours)} tiles")
    return rows, counts, shops


def score_board_text(cfg: AguedaConfig, text: str) -> dict[str, int]:
    """``balancer score``: one player's final score by source (:func:`final_reference`) from a
    board written as :data:`BOARD_TEXT_HELP` says, plus ``empty_space_count``. Raises ValueError."""
    rows, counts, shops = parse_board_text(cfg, text)
    out = final_reference(
        cfg, rows, counts["mural"], counts["tourist_points"], shops, counts["coins"], counts["tourists"]
    )
    out["empty_space_count"] = sum(1 for row in rows for c in row if c < 0)
    return out
