"""The flow figures (issue 49, balancer/report/figures/flow.py) on synthetic measures: the panels they
promise, their labels, no empty panel, and intervals as error bars at checkpoints, never a band."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.container import ErrorbarContainer

from balancer.report import figures as figs
from balancer.report.figures.flow import distribution_figure, leader_wins_figure, seat_scores_figure
from balancer.stats.flow import TRAJECTORY_SCHEMA, flow_measures, paired_flow


def synthetic(seed: int, games: int = 60, k: int = 5, n: int = 3, variant: str = "v"):
    """Random games of ``n`` seats and ``k`` checkpoints: standings random walks, the final standing
    the score, the highest score wins (shared on a tie)."""
    rng = np.random.default_rng(seed)
    walk = rng.integers(0, 4, size=(games, k, n)).cumsum(axis=1).astype(float)
    scores = walk[:, -1, :]
    best = scores.max(axis=1, keepdims=True)
    share = (scores == best) / (scores == best).sum(axis=1, keepdims=True)
    res = pl.DataFrame(
        {
            "variant": variant,
            "n_players": np.full(games * n, n, dtype=np.int32),
            "game_index": np.repeat(np.arange(games), n),
            "seat": np.tile(np.arange(1, n + 1), games).astype(np.int32),
            "score": scores.ravel(),
            "win_share": share.ravel(),
            "turns": np.full(games * n, k),
            "ended_by": "rules",
        }
    )
    g, c, s = np.meshgrid(np.arange(games), np.arange(k), np.arange(1, n + 1), indexing="ij")
    traj = pl.DataFrame(
        {
            "variant": variant,
            "n_players": n,
            "game_index": g.ravel(),
            "checkpoint": c.ravel(),
            "seat": s.ravel(),
            "standing": walk.ravel(),
        }
    ).cast(dict(TRAJECTORY_SCHEMA))
    return res, traj


RES_A, TRAJ_A = synthetic(1)
RES_B, TRAJ_B = synthetic(2, variant="w")
A = flow_measures(RES_A, TRAJ_A).to_dict()
B = flow_measures(RES_B, TRAJ_B).to_dict()
PAIRED = paired_flow(RES_A, RES_B, TRAJ_A, TRAJ_B)


def no_band(ax) -> bool:
    # fill_between draws a PolyCollection; bars (Rectangle patches) and error bars (LineCollection) do not
    return not any(isinstance(c, PolyCollection) for c in ax.collections)


def test_leader_wins_of_one_run():
    fig = leader_wins_figure([("v", A["trajectory"]["leader_wins"])], fair_share=1 / 3)
    (ax,) = fig.get_axes()
    assert ax.get_ylabel() == "leader won (%)"
    assert ax.get_xlabel() == "checkpoint: the end of each round; the last, the game's end"
    # the data's checkpoints 0..4 are labelled 1..5 ("after the first round" is checkpoint 1)
    assert [int(t) for t in ax.get_xticks()] == [0, 1, 2, 3, 4]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3", "4", "5"]
    # one error bar series with a whisker per checkpoint, and no band between checkpoints
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 1 and len(bars[0].lines[0].get_xdata()) == 5
    assert no_band(ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["fair share (33%)", "v"] or set(labels) == {"v", "fair share (33%)"}
    figs.svg_string(fig)  # draws


def test_leader_wins_names_the_games_checkpoint_and_thins_a_long_axis():
    """A game whose checkpoint is not a round says so (Citywright: a turn of the table); 60 checkpoints
    (a long race) get every third one labelled (ceil(60 / 20) = 3), not 60 crowded labels."""
    long = [{"checkpoint": k, "rate": 0.5, "ci_low": 0.4, "ci_high": 0.6} for k in range(60)]
    fig = leader_wins_figure([("v", long)], checkpoint="turn of the table")
    (ax,) = fig.get_axes()
    assert ax.get_xlabel() == "checkpoint: the end of each turn of the table; the last, the game's end"
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert len(labels) == 60 and labels[:4] == ["1", "", "", "4"] and sum(1 for t in labels if t) == 20


def test_a_long_curve_keeps_its_first_and_last_markers_off_the_frame():
    """Tried as a new user would (issue 49): 145 rounds of Urgency drew the first marker on the y axis and
    the last on the right frame (0.6 of a checkpoint of room in 145). Now at least 2% of the axis on each
    side: 0.02 x 144 = 2.88 checkpoints; 12 checkpoints keep their 0.6."""
    for n, pad in ((145, 2.88), (12, 0.6)):
        points = [{"checkpoint": k, "rate": 1.0, "ci_low": 0.2, "ci_high": 1.0} for k in range(n)]
        (ax,) = leader_wins_figure([("v", points)]).get_axes()
        low, high = ax.get_xlim()
        assert (low, high) == (pytest.approx(-pad), pytest.approx(n - 1 + pad))


def test_a_curve_is_drawn_up_to_its_first_thin_checkpoint():
    """first_thin_checkpoint: the first checkpoint that fewer than min_games games of some curve reach (A:
    40, 40, 30, 19, 5 games: index 3; B reaches 18 at index 2: index 2 for both); None when even the first is
    that thin (a small run is drawn whole) or none is. drawn_before cuts the curves and the paired panel."""
    from balancer.report.figures.flow import first_thin_checkpoint

    def curve(games):
        return [{"checkpoint": k, "rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "games": g} for k, g in enumerate(games)]

    a, b = curve([40, 40, 30, 19, 5]), curve([40, 40, 18, 30, 30])
    assert first_thin_checkpoint([a], 20) == 3 and first_thin_checkpoint([a, b], 20) == 2
    assert first_thin_checkpoint([curve([10, 10])], 20) is None and first_thin_checkpoint([a], 5) is None
    diff = [{"checkpoint": k, "difference": 0.0, "ci_low": -0.1, "ci_high": 0.1, "n": 40} for k in range(5)]
    top, bottom = leader_wins_figure([("A", a), ("B", b)], difference=diff, drawn_before=2).get_axes()
    assert all(len(c.lines[0].get_xdata()) == 2 for c in top.containers if isinstance(c, ErrorbarContainer))
    (d,) = [c for c in bottom.containers if isinstance(c, ErrorbarContainer)]
    assert list(d.lines[0].get_xdata()) == [0, 1]
    assert bottom.get_xlabel() == "checkpoint: the end of each round"  # the last drawn is no game's end


def test_leader_wins_of_a_comparison_has_the_paired_panel():
    fig = leader_wins_figure(
        [("A: v", A["trajectory"]["leader_wins"]), ("B: w", B["trajectory"]["leader_wins"])],
        fair_share=1 / 3,
        difference=PAIRED["leader_wins"],
    )
    top, bottom = fig.get_axes()
    assert len([c for c in top.containers if isinstance(c, ErrorbarContainer)]) == 2
    # A and B are dodged apart at each checkpoint, not drawn on top of each other
    xa, xb = (c.lines[0].get_xdata() for c in top.containers)
    assert all(b - a > 0.05 for a, b in zip(xa, xb))
    (diff,) = [c for c in bottom.containers if isinstance(c, ErrorbarContainer)]
    assert list(diff.lines[0].get_xdata()) == [0, 1, 2, 3, 4]
    assert bottom.get_ylabel() == "difference (percentage points)" and no_band(top) and no_band(bottom)
    # the zero line, and an axis symmetric about it
    low, high = bottom.get_ylim()
    assert low == pytest.approx(-high)


def test_leader_wins_refuses_an_empty_curve():
    with pytest.raises(ValueError):
        leader_wins_figure([("v", [])])


def test_margin_and_decided_at_histograms():
    t = A["trajectory"]
    fig = distribution_figure(
        [
            ("Margin", "winner minus runner-up (points)", [("v", A["margin"])]),
            ("Decided at", "share of the game", [("v", t["decided_at"])]),
            ("Lead changes", "per game", [("v", t["lead_changes"])]),
        ]
    )
    axes = fig.get_axes()
    assert len(axes) == 3
    assert [ax.get_xlabel() for ax in axes] == ["winner minus runner-up (points)", "share of the game", "per game"]
    for ax, d in zip(axes, [A["margin"], t["decided_at"], t["lead_changes"]]):
        heights = [p.get_height() for p in ax.patches]
        assert sum(heights) == d["n"] == 60  # every game in a bar: no empty panel
        assert len([c for c in ax.containers if isinstance(c, ErrorbarContainer)]) == 1  # the mean's interval


def test_a_length_the_same_in_every_game_is_ticked_once():
    """Every game 12 turns (Citywright: 12 rounds): one bin, [11.5, 12.5]; its axis says 12 once, not
    a run of fractional ticks (11.55, 11.70, ...) that ran into each other."""
    length = {"n": 40, "mean": 12.0, "ci_low": 12.0, "ci_high": 12.0, "edges": [11.5, 12.5], "counts": [40]}
    fig = distribution_figure([("Length", "turns", [("v", length)])])
    fig.canvas.draw()
    ax = fig.get_axes()[0]
    shown = [t.get_text() for t in ax.get_xticklabels() if 11.5 <= t.get_position()[0] <= 12.5]
    assert shown == ["12"]


def test_a_distribution_of_no_game_is_left_out():
    fig = distribution_figure(
        [("Margin", "points", [("v", A["margin"])]), ("Nothing", "x", [("v", {"n": 0, "counts": []})])]
    )
    assert len(fig.get_axes()) == 1
    with pytest.raises(ValueError):
        distribution_figure([("Nothing", "x", [("v", None)])])


def test_histograms_of_two_runs_overlay_as_outlines():
    fig = distribution_figure([("Margin", "points", [("A", A["margin"]), ("B", B["margin"])])])
    (ax,) = fig.get_axes()
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"A", "B"}
    assert all(p.get_facecolor()[3] == 0 for p in ax.patches)  # outlines: see-through


def test_seat_scores_boxes_from_quantiles():
    fig = seat_scores_figure(A["seat_scores"])
    (ax,) = fig.get_axes()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["seat 1", "seat 2", "seat 3"]
    assert ax.get_ylabel() == "final score (points)"
    # a box per seat, its median line at the seat's median
    medians = sorted(
        line.get_ydata()[0] for line in ax.get_lines() if len(line.get_xdata()) == 2 and line.get_linewidth() == 1.6
    )
    assert medians == sorted(s["scores"]["quantiles"]["median"] for s in A["seat_scores"])
    two = seat_scores_figure([("A", A["seat_scores"]), ("B", B["seat_scores"])])
    assert {t.get_text() for t in two.get_axes()[0].get_legend().get_texts()} == {"A", "B"}
    with pytest.raises(ValueError):
        seat_scores_figure([])


def test_seat_score_whiskers_stay_off_the_frame():
    """Urgency's scores end at 6 (every piece borne off): the 75th and 95th percentiles and the maximum are
    all 6, and the box and the whisker cap were drawn on the axis' top edge (issue 50 item 8)."""
    q = {"min": 2.0, "q05": 2.0, "q25": 4.0, "median": 5.0, "q75": 6.0, "q95": 6.0, "max": 6.0}
    seat = {"n": 100, "mean": 4.9, "ci_low": 4.7, "ci_high": 5.1, "quantiles": q}
    fig = seat_scores_figure([{"seat": 1, "scores": seat}, {"seat": 2, "scores": seat}])
    low, high = fig.get_axes()[0].get_ylim()
    assert high > 6.0 + 0.05 * (6.0 - 2.0) and low < 2.0 - 0.05 * (6.0 - 2.0)
