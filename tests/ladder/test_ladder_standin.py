"""Ladders on the stand-in game (ladder_standin.py), whose answers are known by construction: the
match-up matrix, both seat orders, the ratings, the skill depth, the seat x rung test, the cache of
finished cells and independence from the number of workers."""

from __future__ import annotations

import math
import re

import numpy as np
import pyarrow.parquet as pq
import pytest

from balancer.ladder.analysis import analyze
from balancer.study import run_study


def _study(tmp_path, rungs, players, games, *, extra="", base="base.yaml", bootstrap=300):
    path = tmp_path / "configs" / "ladder.yaml"
    path.write_text(
        f"""\
study: lad
title: a ladder of the stand-in
game: ladderstandin
seed: 17
variants: {{base: {base}}}
ladder:
  rungs: {rungs}
  players: {players}
  games: {games}
  bootstrap: {bootstrap}
{extra}""",
        encoding="utf-8",
    )
    return path


def _close(estimate: float, truth: float, games: int, z: float = 4.0) -> bool:
    """Within z binomial standard errors of the truth (z = 4: a miss has probability 6e-5)."""
    return abs(estimate - truth) <= z * math.sqrt(truth * (1 - truth) / games)


def _rating_close(ratings, item: int, truth: float) -> bool:
    """Within 4 bootstrap standard errors (the 95% interval's width / 3.92) of the truth."""
    se = (ratings.high[item] - ratings.low[item]) / 3.92
    return abs(ratings.theta[item] - truth) <= 4 * se


def test_two_player_ladder_matches_bradley_terry_by_construction(ladder_game, tmp_path):
    # strengths weak 1, mid 2, strong 4, seats equal: row beats column with probability w_r / (w_r + w_c):
    # weak-mid 1/3, weak-strong 1/5, mid-strong 1/3 (and the complements); ratings ln 2 and ln 4 above
    # weak; skill depth (4/5 - 1/2) / (1 - 1/2) = 0.6
    games = 4000
    result = run_study(_study(tmp_path, "[weak, mid, strong]", 2, games), tmp_path / "results", jobs=1, progress=False)
    [t] = analyze(result)
    w = {"weak": 1.0, "mid": 2.0, "strong": 4.0}
    assert len(result.cells) == 3 + 3  # three mirrors, three pairs
    for row in w:
        for col in w:
            if row == col:
                continue
            p = w[row] / (w[row] + w[col])
            for order in ("any", "first", "second"):
                m = t.matchup(row, col, order)
                n = games if order == "any" else games // 2
                assert m["games"] == n and _close(m["rate"], p, n), (row, col, order, m)
    for rows in t.seat_rates:  # mirror tables: seats equal by construction
        assert _close(rows[0]["rate"], 0.5, games)
    assert t.ratings.model == "Bradley-Terry"
    assert _rating_close(t.ratings, 1, math.log(2)) and _rating_close(t.ratings, 2, math.log(4))
    assert t.depth["depth"] == pytest.approx(2 * t.matchup("strong", "weak")["rate"] - 1)
    assert t.depth["ci_low"] <= 0.6 <= t.depth["ci_high"]
    # each step doubles the strength: the upper rung wins 2/3, a step depth of 2 (2/3) - 1 = 1/3
    assert [(st["lower"], st["upper"]) for st in t.steps] == [("weak", "mid"), ("mid", "strong")]
    assert all(st["ci_low"] <= 1 / 3 <= st["ci_high"] for st in t.steps)
    assert t.never == []


def test_four_player_ladder_matches_plackett_luce_by_construction(ladder_game, tmp_path):
    # weak 1, strong 4 at four players: one strong among three weak wins 4 / (4 + 3) = 4/7, one weak
    # among three strong 1 / (1 + 12) = 1/13, each seat of the lone player games / 4 times; the
    # Plackett-Luce rating of strong is ln 4; skill depth (4/7 - 1/4) / (3/4) = 3/7
    games = 4000
    result = run_study(_study(tmp_path, "[weak, strong]", 4, games), tmp_path / "results", jobs=1, progress=False)
    [t] = analyze(result)
    top, bottom = t.matchup("strong", "weak"), t.matchup("weak", "strong")
    assert _close(top["rate"], 4 / 7, games) and _close(bottom["rate"], 1 / 13, games)
    for s in range(1, 5):
        m = t.matchup("strong", "weak", f"seat {s}")
        assert m["games"] == games // 4 and _close(m["rate"], 4 / 7, games // 4)
    assert t.ratings.model == "Plackett-Luce"
    assert _rating_close(t.ratings, 1, math.log(4))
    assert t.depth["ci_low"] <= 3 / 7 <= t.depth["ci_high"]
    assert t.depth["depth"] == pytest.approx((top["rate"] - 0.25) / 0.75)


def test_random_against_random_shows_no_skill(ladder_game, tmp_path):
    # weak and twin have the same strength: every match-up is the fair share, the rating difference
    # 0 and the skill depth 0, each inside its interval
    result = run_study(_study(tmp_path, "[weak, twin]", "[2, 4]", 2000), tmp_path / "results", jobs=1, progress=False)
    two, four = analyze(result)
    assert two.matchup("twin", "weak")["ci_low"] <= 0.5 <= two.matchup("twin", "weak")["ci_high"]
    assert four.matchup("twin", "weak")["ci_low"] <= 0.25 <= four.matchup("twin", "weak")["ci_high"]
    for t in (two, four):
        assert t.depth["ci_low"] <= 0.0 <= t.depth["ci_high"]
        assert t.ratings.low[1] <= 0.0 <= t.ratings.high[1]


def test_seat_effect_that_grows_with_strength_is_found_and_seat_orders_apart(ladder_game, tmp_path):
    # seat 1 doubles a player's weight to the power of its seat power: weak (power 0) gets nothing,
    # strong (power 1) gets it all. Mirror tables: weak seats 1/2 each, strong seat 1 2/3 -> a seat x
    # rung interaction by construction. Match-ups by seat order: strong (4) moving first against weak
    # (1): 8 / (8 + 1) = 8/9; moving second: 4 / (4 + 1) = 4/5 (weak's weight is 1 in either seat).
    base = tmp_path / "configs" / "base.yaml"
    base.write_text(
        base.read_text()
        .replace("seat_power: {}", "seat_power: {weak: 0, strong: 1}")
        .replace("seat_factor: {}", 'seat_factor: {"2": [2, 1]}')
    )
    games = 2000
    result = run_study(_study(tmp_path, "[weak, strong]", 2, games), tmp_path / "results", jobs=1, progress=False)
    [t] = analyze(result)
    assert _close(t.seat_rates[0][0]["rate"], 1 / 2, games) and _close(t.seat_rates[1][0]["rate"], 2 / 3, games)
    assert t.test["p"] < 1e-6 and t.test["df"] == 1
    assert "the seat effect changes with the players' strength" in t.sentence
    assert t.sentence.startswith("Seat 1 goes from the fair share") or t.sentence.startswith("Seat 1's advantage grows")
    assert _close(t.matchup("strong", "weak", "first")["rate"], 8 / 9, games // 2)
    assert _close(t.matchup("strong", "weak", "second")["rate"], 4 / 5, games // 2)
    assert _close(t.matchup("strong", "weak")["rate"], (8 / 9 + 4 / 5) / 2, games)


def test_cells_are_reused_and_the_same_for_any_number_of_workers(ladder_game, tmp_path):
    path = _study(tmp_path, "[weak, mid]", "[2, 3]", 120, bootstrap=50)
    one = run_study(path, tmp_path / "one", jobs=1, progress=False)
    again = run_study(path, tmp_path / "one", jobs=1, progress=False)
    assert all(c.reused for c in again.cells.values()) and not any(c.reused for c in one.cells.values())
    two = run_study(path, tmp_path / "two", jobs=2, progress=False)
    for key, cell in one.cells.items():
        a = pq.read_table(cell.out_dir / "results.parquet").drop_columns(["variant"])
        b = pq.read_table(two.cells[key].out_dir / "results.parquet").drop_columns(["variant"])
        assert a.equals(b), key
    for x, y in zip(analyze(one), analyze(two)):
        assert x.matchups == y.matchups and x.test == y.test and x.depth == y.depth
        np.testing.assert_array_equal(x.ratings.theta, y.ratings.theta)
        np.testing.assert_array_equal(x.ratings.low, y.ratings.low)


def test_the_ratings_chart_draws_an_interval_that_lies_on_one_side_of_its_estimate():
    # An "at least" rating (a rung that never won: Urban Sketchers' random against greedy at four
    # players, 1 Dec 2026) can have a bootstrap interval wholly above the estimate; error bars
    # refuse that ("'xerr' must not contain negative values"), so the chart draws the interval's
    # ends: here from 1,500 to 1,700 for an estimate of 1,400
    from types import SimpleNamespace

    from balancer.report.figures.ladder import ratings_chart

    rows = [
        {"item": "random", "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0},
        {"item": "greedy", "elo": 1400.0, "elo_low": 1500.0, "elo_high": 1700.0},
    ]
    fig = ratings_chart(SimpleNamespace(ratings=SimpleNamespace(rows=lambda: rows), rungs=["random", "greedy"]))
    (ax,) = fig.axes
    segments = ax.collections[0].get_segments()
    assert [tuple(seg[:, 0]) for seg in segments] == [(0.0, 0.0), (1500.0, 1700.0)]
    caps, points = ax.lines[0], ax.lines[1]  # then the dotted line at 0
    assert list(points.get_xdata()) == [0.0, 1400.0]
    assert sorted(caps.get_xdata()) == [0.0, 0.0, 1500.0, 1700.0]


def test_the_seat_chart_draws_each_rungs_interval_as_a_whisker_not_a_band_between_rungs():
    # issue 50 item 8: the seat chart shaded each seat's 95% interval as a band from rung to rung (values
    # nothing measured: a rung is an agent, not a point on a scale). Now every seat has a whisker at each
    # rung, the seats dodged side by side: two seats, spread 0.5 over a gap of 1, offsets -0.25 and +0.25.
    # Seat 1 at 60% (55 to 65) then 52% (48 to 56); seat 2 at 40% (35 to 45) then 48% (44 to 52).
    from types import SimpleNamespace

    from matplotlib.collections import LineCollection, PolyCollection

    from balancer.report.figures.ladder import seat_chart

    def seat(k: int, rate: float, lo: float, hi: float) -> dict:
        return {"seat": k, "rate": rate, "ci_low": lo, "ci_high": hi}

    t = SimpleNamespace(
        rungs=["random", "greedy"],
        players=2,
        fair=0.5,
        published=None,
        seat_rates=[
            [seat(1, 0.60, 0.55, 0.65), seat(2, 0.40, 0.35, 0.45)],
            [seat(1, 0.52, 0.48, 0.56), seat(2, 0.48, 0.44, 0.52)],
        ],
    )
    (ax,) = seat_chart(t).axes
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]  # no band
    whiskers = [c for c in ax.collections if isinstance(c, LineCollection)]
    ends = sorted(tuple(np.round(seg[:, 1], 6)) for c in whiskers for seg in c.get_segments())
    assert ends == [(35.0, 45.0), (44.0, 52.0), (48.0, 56.0), (55.0, 65.0)]
    xs = sorted(round(float(seg[0, 0]), 6) for c in whiskers for seg in c.get_segments())
    assert xs == [-0.25, 0.25, 0.75, 1.25]
    assert [c.get_label() for c in ax.containers] == ["seat 1", "seat 2"]
    points = [c.lines[0] for c in ax.containers]
    assert [line.get_linestyle() for line in points] == ["None", "None"]  # no line from rung to rung
    assert [list(line.get_ydata()) for line in points] == [pytest.approx([60, 52]), pytest.approx([40, 48])]


def test_the_ratings_chart_draws_a_one_sided_bound_to_the_edge():
    # a rung that never lost (issue 32): its exact bound Elo >= 729 has no upper end; the chart draws
    # it from 729 towards the right edge, ending in an arrow head inside the frame, no point estimate
    from types import SimpleNamespace

    from balancer.report.figures.ladder import ratings_chart

    rows = [
        {"item": "random", "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0, "one_sided": None},
        {"item": "greedy", "elo": 1041.0, "elo_low": 729.0, "elo_high": None, "one_sided": "at least"},
    ]
    fig = ratings_chart(SimpleNamespace(ratings=SimpleNamespace(rows=lambda: rows), rungs=["random", "greedy"]))
    (ax,) = fig.axes
    right = ax.get_xlim()[1]
    segments = ax.collections[0].get_segments()
    (end,) = [seg[1, 0] for seg in segments if seg[0, 0] == 729.0]
    assert [tuple(seg[:, 0]) for seg in segments] == [(0.0, 0.0), (729.0, end)]
    points, arrow = ax.lines[1], ax.lines[2]
    assert list(points.get_xdata()) == [0.0]
    assert list(arrow.get_xdata()) == [end]  # the head ends the interval
    # issue 50 item 8 (ladder): the head was centred on the frame's edge (x == the right limit), half
    # of it cut off; now the whole head (half its marker size right of its centre) is inside the frame
    fig.canvas.draw()
    tip = ax.transData.transform((end, 1.0))[0] + arrow.get_markersize() / 2 * fig.dpi / 72
    assert end < right and tip < ax.bbox.x1


def test_the_ladder_page_names_its_cells_folders_relative_to_the_page(ladder_game, tmp_path):
    """A new user's ladder page listed its cells as ``results/ladder-.../...`` (relative to the shell) while
    the study page and its own Methods say them relative to the page: a page in ``tmp/pages/`` names the
    cells under ``tmp/results/`` as ``../results/...``."""
    from balancer.report.ladder import render_ladder

    result = run_study(_study(tmp_path, "[weak, twin]", 2, 20), tmp_path / "results", jobs=1, progress=False)
    page = render_ladder(result, tmp_path / "pages" / "ladder.html", tables=analyze(result)).read_text()
    cells = re.findall(r"<td><code>([^<]*)</code></td></tr>", page)
    assert cells and all(c.startswith("../results/") for c in cells), cells
