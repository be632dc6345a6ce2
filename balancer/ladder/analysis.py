"""The numbers of a played ladder, per variant and player count (what the report shows).

Reads the cells of a finished ladder study (:class:`balancer.study.runner.StudyResult`): the mirror
cells' summaries for the seat win rates, score components and metrics, and the match-up cells'
results tables for the matrix, the ratings and the skill depth (:mod:`balancer.stats.ladder`,
:mod:`balancer.stats.ratings`). Computes; renders nothing.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from balancer.outcomes import Cell, LadderTable, StudyResult
from balancer.sim.results import scan_results
from balancer.stats.ladder import (
    describe_shift,
    describe_test,
    game_outcomes,
    lone_agent_rates,
    seat_rung_test,
    seat_shift,
    skill_depth,
)
from balancer.stats.paired import holm_adjust
from balancer.stats.ratings import RatingData, rate

from .model import Ladder, LadderCell, cells


def seat_sentence(
    test: dict[str, Any],
    shift: dict[str, Any],
    bottom: str,
    top: str,
    rates: Sequence[Sequence[float]] = (),
    rungs: Sequence[str] = (),
) -> str:
    """The headline in words: the test's verdict, and the seat whose distance from the fair share
    moves most from the bottom rung to the top (as a finding when the test says the seat effect
    changes, as the largest move of the estimates otherwise). With the (rungs, seats) ``rates`` and
    the ``rungs``' names: when the largest distance of any seat from the fair share is at a middle
    rung, a sentence says so (a bottom-to-top comparison would not show it)."""
    move = describe_shift(shift, bottom, top)
    verdict = describe_test(test)
    decision = test.get("p_adjusted", test.get("p"))
    if decision is not None and decision < 0.05:
        text = f"{move}: {verdict}"
    else:
        text = f"{verdict}. The largest move of the estimates: {move}"
    text = text[0].upper() + text[1:]
    r = np.asarray(rates, dtype=float)
    if r.ndim == 2 and r.shape[0] > 2 and len(rungs) == r.shape[0]:
        dist = r - 1.0 / r.shape[1]
        k, s = (int(i) for i in np.unravel_index(int(np.argmax(np.abs(dist))), dist.shape))
        if 0 < k < r.shape[0] - 1:
            where = "above" if dist[k, s] > 0 else "below"
            text += (
                f". The largest distance from the fair share is at {rungs[k]}: seat {s + 1} at "
                f"{100 * r[k, s]:.1f}%, {100 * abs(dist[k, s]):.1f} points {where} it"
            )
    return text


def _seed(study_seed: int, variant: str, players: int) -> np.random.SeedSequence:
    """The bootstrap's seed: from the study seed, the variant label and the player count."""
    return np.random.SeedSequence([study_seed, zlib.crc32(variant.encode("utf-8")), players])


def _matchup_rows(lc: LadderCell, rungs: list[str], cell: Cell) -> list[dict[str, Any]]:
    """Match-up rows of one match-up cell: the lone (2 players: each) agent's rate, pooled and by seat."""
    lf = scan_results(cell.out_dir)
    n = lc.players
    pairs = [(lc.row, lc.col), (lc.col, lc.row)] if n == 2 else [(lc.row, lc.col)]
    out = []
    for row, col in pairs:
        r = lone_agent_rates(lf, rungs[row], n)
        base = {"row": rungs[row], "col": rungs[col]}
        out.append(base | {"order": "any"} | {k: r[k] for k in ("games", "wins", "rate", "ci_low", "ci_high")})
        for s in r["by_seat"]:
            order = ("first" if s["seat"] == 1 else "second") if n == 2 else f"seat {s['seat']}"
            out.append(base | {"order": order} | {k: s[k] for k in ("games", "wins", "rate", "ci_low", "ci_high")})
    return out


def analyze(result: StudyResult) -> list[LadderTable]:
    """Every ladder of a finished ladder study: one :class:`LadderTable` per variant and player count,
    in the order of the study's variants and the ladder's players. Raises ValueError if the study
    has no ``ladder:`` section."""
    ladder: Ladder | None = result.study.ladder
    if ladder is None:
        raise ValueError(f"{result.study_path}: not a ladder study (no ladder: section)")
    all_cells = cells(ladder)
    out = []
    for variant in result.study.variants:
        for n in ladder.players:
            rungs = ladder.rungs_for(n)
            mine = [c for c in all_cells if c.players == n]
            mirror = [result.cells[(c.run, variant)] for c in mine if c.kind == "mirror"]
            seat_rates = [sorted(m.summary["seat_win_rate"], key=lambda r: r["seat"]) for m in mirror]
            wins = np.array([[r["wins"] for r in rows] for rows in seat_rates], dtype=float)
            rates = [[r["rate"] for r in rows] for rows in seat_rates]
            test = seat_rung_test(wins)
            shift = seat_shift(rates, 1.0 / n)
            table = LadderTable(
                variant,
                n,
                rungs,
                mirror,
                seat_rates,
                test,
                shift,
                seat_sentence(test, shift, rungs[0], rungs[-1], rates, rungs),
            )
            pub = ladder.published_for(variant, n)
            if pub is not None:
                table.published = [p / 100.0 for p in pub]
                table.distances = [
                    math.sqrt(float(np.mean((np.array(r) - np.array(table.published)) ** 2))) for r in rates
                ]
                best = int(np.argmin(table.distances))
                table.closest = {"rung": rungs[best], "rms": table.distances[best]}
            if ladder.matchups:
                _add_matchups(table, [c for c in mine if c.kind == "matchup"], result, variant, ladder)
            out.append(table)
    _adjust_tests(out)
    return out


def _adjust_tests(tables: list[LadderTable]) -> None:
    """Holm-adjust the seat x rung tests of every ladder of a study (one per variant and player
    count) as one family, and restate each headline on its adjusted p-value (a single ladder is a
    family of one: nothing changes)."""
    adjusted = holm_adjust([t.test.get("p") for t in tables])
    size = sum(q is not None for q in adjusted)
    if size < 2:
        return
    for t, q in zip(tables, adjusted):
        if q is None:
            continue
        t.test["p_adjusted"], t.test["family_size"] = q, size
        t.sentence = seat_sentence(
            t.test, t.shift, t.rungs[0], t.rungs[-1], [[r["rate"] for r in rows] for rows in t.seat_rates], t.rungs
        )


def _add_matchups(
    table: LadderTable, matchup_cells: list[LadderCell], result: StudyResult, variant: str, ladder: Ladder
) -> None:
    """Fill the match-up matrix, the ratings and the skill depth of ``table``."""
    rungs, n = table.rungs, table.players
    if n == 2:
        for r, rows in zip(rungs, table.seat_rates):
            for order, seat in (("first", 0), ("second", 1)):
                s = rows[seat]
                table.matchups.append(
                    {
                        "row": r,
                        "col": r,
                        "order": order,
                        "games": s["games"],
                        "wins": s["wins"],
                        "rate": s["rate"],
                        "ci_low": s["ci_low"],
                        "ci_high": s["ci_high"],
                    }
                )
    data = RatingData(list(rungs))
    item_of = {r: i for i, r in enumerate(rungs)}
    for lc in matchup_cells:
        cell = result.cells[(lc.run, variant)]
        table.matchup_cells.append(cell)
        table.matchups.extend(_matchup_rows(lc, rungs, cell))
        data.add_cell(lc.run, [item_of[a] for a in lc.agents], game_outcomes(scan_results(cell.out_dir), item_of))
    top = table.matchup(rungs[-1], rungs[0])
    if top is not None and top["rate"] is not None:
        table.depth = skill_depth(top["rate"], top["ci_low"], top["ci_high"], n)
    for lower, upper in zip(rungs, rungs[1:]):
        m = table.matchup(upper, lower)
        if m is not None and m["rate"] is not None:
            table.steps.append({"lower": lower, "upper": upper} | skill_depth(m["rate"], m["ci_low"], m["ci_high"], n))
    table.never = [
        (m["row"], m["col"])
        for m in table.matchups
        if m["order"] == "any" and m["row"] != m["col"] and m["games"] and m["wins"] == 0
    ]
    try:
        table.ratings = rate(data, replicates=ladder.bootstrap, seed=_seed(result.study.seed, variant, n))
    except (ValueError, RuntimeError) as exc:
        table.rating_note = f"no ratings: {exc}"
