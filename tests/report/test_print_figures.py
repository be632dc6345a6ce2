"""Figures fit to print (issue 31, point 7): one style, dodged series, left-out zero categories, x labels
from the config model's field metadata, the compare page's "which seat moved", a zero-only axis, and
every figure saved as SVG, PNG and PDF."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest
from pydantic import BaseModel, Field

from balancer.report import figures as figs
from balancer.report.compare import seat_moves_sentence
from balancer.report.figures.sweep import line_chart, x_range
from balancer.report.render import scored_components
from balancer.report.sweep import path_label
from balancer.report.tune import response_marks

# --------------------------------------------------------------------------- dodge


def test_dodge_spreads_four_series_over_four_tenths_of_the_smallest_gap():
    # positions 1, 2, 4: smallest gap 1; 0.4 of it over 3 steps: 0.4/3 apart, centred on 0
    step = 0.4 / 3
    assert figs.dodge_offsets(4, [1, 2, 4]) == pytest.approx([-1.5 * step, -0.5 * step, 0.5 * step, 1.5 * step])


def test_dodge_follows_the_scale_of_the_axis():
    # positions 0, 10, 20: gap 10; two series 0.4 * 10 = 4 apart: -2 and +2
    assert figs.dodge_offsets(2, [0, 10, 20]) == pytest.approx([-2.0, 2.0])


def test_dodge_leaves_one_series_in_place():
    assert figs.dodge_offsets(1, [0, 1]) == [0.0]
    # one position: the gap is taken as 1, so two series sit at -0.2 and +0.2
    assert figs.dodge_offsets(2, [3]) == pytest.approx([-0.2, 0.2])


def test_sweep_chart_draws_each_seat_at_its_own_x():
    xs = [0, 1, 2]
    series = [(f"seat {s}", [0.25] * 3, [0.2] * 3, [0.3] * 3) for s in range(1, 5)]
    svg = line_chart(xs, series, xlabel="x", ylabel="y", title="t", marks=[(1, "base variant (1)", ":")])
    # the legend names the dotted base line with its value, and every seat
    assert "base variant (1)" in svg and all(f"seat {s}" in svg for s in range(1, 5))


def test_sweep_chart_keeps_a_flat_number_out_of_its_noise_and_the_base_above_the_whiskers():
    """Issue 50: a metric that barely moves (4.70 to 4.72) is drawn on a y range of at least a fifth
    of its size (0.94), a rate on at least 5 points; the base variant's line is drawn above them."""
    from balancer.report.publish import collecting

    flat = [("wasted tiles", [4.70, 4.71, 4.72], [4.69, 4.70, 4.71], [4.71, 4.72, 4.73])]
    with collecting() as found:
        line_chart([0, 1, 2], flat, xlabel="x", ylabel="y", title="t", marks=[(1, "base variant (1)", ":")])
    ax = found[0][0].get_axes()[0]
    low, high = ax.get_ylim()
    assert high - low == pytest.approx(0.2 * 4.73)
    base = [line for line in ax.get_lines() if line.get_label() == "base variant (1)"][0]
    assert base.get_zorder() > max(c.get_zorder() for c in ax.collections)
    rates = [("seat 1", [0.25, 0.251, 0.252], [0.249, 0.25, 0.251], [0.251, 0.252, 0.253])]
    with collecting() as found:
        line_chart([0, 1, 2], rates, xlabel="x", ylabel="y", title="t", scale=100.0)
    low, high = found[0][0].get_axes()[0].get_ylim()
    assert high - low == pytest.approx(5.0)


# --------------------------------------------------------------------------- zero categories


def test_a_category_zero_in_every_row_is_left_out():
    kept, dropped = figs.nonzero_components({"parks": [3.0, 2.5], "achievements": [0.0, 0.0], "bonus": [None, 0]})
    assert kept == ["parks"] and dropped == ["achievements", "bonus"]


def test_a_penalty_is_kept():
    kept, dropped = figs.nonzero_components({"penalty": [0.0, -1.5]})
    assert kept == ["penalty"] and dropped == []


def test_scored_components_reads_the_score_by_seat():
    rows = [
        {"seat": 1, "components": {"residential": 12.0, "achievements": 0.0}},
        {"seat": 2, "components": {"residential": 10.5, "achievements": 0.0}},
    ]
    assert scored_components(["residential", "achievements"], rows) == (["residential"], ["achievements"])


# --------------------------------------------------------------------------- x label from the config model


class Pair(BaseModel):
    points_per_pair: int = Field(description="points per pair of houses", json_schema_extra={"unit": "points"})


class Scoring(BaseModel):
    residential: Pair
    rows: int = Field(json_schema_extra={"unit": "rows"})
    plain: int = 3


class Variant(BaseModel):
    scoring: Scoring
    seat_bonus: dict[str, list[int]] = Field(
        description="points each seat starts with", json_schema_extra={"unit": "points"}
    )


def test_path_label_gives_description_and_unit_on_one_line():
    # issue 50: one line under the axis (was three: the description wrapped, then the path); the
    # path is in the figure's title
    assert path_label(Variant, "scoring.residential.points_per_pair") == "points per pair of houses (points)"


def test_path_label_of_a_list_item_is_the_field_holding_the_list():
    # seat_bonus.4[3]: the dict's value is a list, its item is described by seat_bonus
    assert path_label(Variant, "seat_bonus.4[3]") == "points each seat starts with (points)"


def test_path_label_with_a_unit_only_or_nothing_falls_back_to_the_path():
    assert path_label(Variant, "scoring.rows") == "scoring.rows (rows)"
    assert path_label(Variant, "scoring.plain") == "scoring.plain"
    assert path_label(Variant, "scoring.missing") == "scoring.missing"
    assert path_label(Variant, "not a path!") == "not a path!"


def test_citywright_seat_bonus_is_labelled_in_points():
    from balancer.games.citywright.config import CitywrightConfig

    label = path_label(CitywrightConfig, "seat_bonus.4[3]")
    assert (
        label.endswith("(points)") and "\n" not in label and label.startswith("seat bonus printed on the score sheet")
    )


# --------------------------------------------------------------------------- tune panels


def test_tune_panels_share_one_x_range_holding_the_base_and_the_best():
    marks = response_marks(0, 2)
    assert marks == [(0, "base variant (0)", ":"), (2, "best (2)", "--")]
    # values 1..3 and the base at 0: from 0 to 3; 5% of 3 is 0.15, 0.3 of the gap 1 is 0.3: 0.3 either side
    assert x_range([1, 2, 3], [m[0] for m in marks]) == pytest.approx((-0.3, 3.3))
    # 0, 10, ..., 100: 5% of 100 is 5, 0.3 of the gap 10 is 3: 5 either side
    assert x_range(list(range(0, 101, 10))) == pytest.approx((-5.0, 105.0))
    assert x_range(["low", "high"]) == (-0.5, 1.5)  # categories: half a category either side
    assert response_marks(1, 1) == [(1, "base variant = best (1)", ":")]


# --------------------------------------------------------------------------- compare: which seat moved


def _seat(seat: int, a: float, b: float, significant: bool) -> dict:
    return {"name": f"seat {seat}", "seat": seat, "from": a, "to": b, "difference": b - a, "significant": significant}


def test_which_seat_moved_names_the_flagged_seats_only():
    rows = [
        _seat(1, 0.26, 0.30, True),
        _seat(2, 0.25, 0.26, False),
        _seat(3, 0.25, 0.24, False),
        _seat(4, 0.24, 0.20, True),
    ]
    # seat 1: 26.0% -> 30.0%, up 4.0 points; seat 4: 24.0% -> 20.0%, down 4.0; 2 and 3 not flagged
    assert seat_moves_sentence(rows, "v1.1", "v1.2") == (
        "Seat 1 moved up 4.0 percentage points (26.0% → 30.0%); seat 4 moved down 4.0 percentage points "
        "(24.0% → 20.0%) from v1.1 to v1.2; the other seats did not move detectably."
    )


def test_which_seat_moved_when_none_is_flagged():
    rows = [_seat(1, 0.5, 0.55, False), _seat(2, 0.5, 0.45, False)]
    assert seat_moves_sentence(rows, "a", "b") == (
        "No seat's win rate moved detectably from a to b: no seat's difference is flagged after Holm's adjustment."
    )
    assert seat_moves_sentence([], "a", "b") == ""


# --------------------------------------------------------------------------- a zero-only axis


def test_an_axis_of_zeros_spans_one_unit_not_1e9():
    assert figs.symmetric_span([0.0, 0.0], [0.0, 0.0]) == 1.0
    assert figs.symmetric_span([-2.0, 0.5], [1.0, 3.0]) == 3.0


def test_difference_chart_of_identical_variants_prints_no_exponent():
    rows = [{"name": "seat 1", "difference": 0.0, "ci_low": 0.0, "ci_high": 0.0, "significant": False}]
    svg = figs.difference_chart([("Seat win rates (difference in percentage points)", rows, 100.0)])
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)  # text stays text (svg.fonttype none)
    assert not any("1e" in t or "×10" in t for t in texts), texts
    assert "−1.0" in texts and "1.0" in texts  # the axis runs from -1.2 to 1.2 (a margin beyond the span 1)


# --------------------------------------------------------------------------- one style, three formats


def test_every_format_has_its_magic_bytes(tmp_path):
    fig = figs.new_figure()
    fig.add_subplot().plot([0, 1], [0, 1])
    paths = figs.write_figure_files(fig, tmp_path / "figs", "f")
    assert [p.name for p in paths] == ["f.svg", "f.png", "f.pdf"]
    svg, png, pdf = (p.read_bytes() for p in paths)
    assert svg.startswith((b"<?xml", b"<svg"))
    assert png.startswith(b"\x89PNG")
    assert pdf.startswith(b"%PDF")


def test_the_files_are_the_same_for_the_same_figure():
    fig = figs.new_figure()
    fig.add_subplot().plot([0, 1], [0, 1])
    assert figs.figure_files(fig) == figs.figure_files(fig)  # no dates in any of the three


def test_no_figure_is_wider_than_a_printed_page():
    assert figs.new_figure((12.0, 3.0)).get_figwidth() == figs.PAGE_WIDTH
    with figs.style():
        assert matplotlib.rcParams["font.size"] == figs.FONT_SIZE
        assert matplotlib.rcParams["savefig.dpi"] == figs.DPI


def test_heatmap_panels_fit_the_page():
    # 4 rungs: a panel needs 4 * 0.46 + 0.8 = 2.64 in; 6.5 - 0.8 = 5.7 in holds 2 of them; 3 panels -> 2 rows
    assert figs.panel_grid(3, 4) == (2, 2)
    # 2 values: 1.72 in a panel, 3 fit: one row
    assert figs.panel_grid(3, 2) == (1, 3)
    # 10 values: 5.4 in, one per row
    assert figs.panel_grid(2, 10) == (2, 1)


def test_wrap_keeps_the_line_breaks_of_the_text():
    # 1 inch at 10 pt holds int(72 / 5.5) = 13 characters
    assert figs.wrap("seat bonus printed on the sheet (points)\nseat_bonus.4[3]", 1.0) == (
        "seat bonus\nprinted on\nthe sheet\n(points)\nseat_bonus.4[3]"
    )


def test_heatmap_interval_text_is_readable():
    nan = float("nan")
    rates = [[0.5, 0.7], [0.3, nan]]
    fig = figs.matchup_heatmap(["a", "b"], [("p", rates, rates, rates)], "A title long enough to wrap " * 4)
    sizes = {t.get_fontsize() for ax in fig.axes for t in ax.texts}
    assert min(sizes) >= figs.SMALL_SIZE
    assert "\n" in fig.get_suptitle()  # wrapped to the page, not clipped


def test_sweep_heatmap_of_equal_values_has_no_exponent():
    import numpy as np

    from balancer.report.figures.sweep import heatmap_chart

    m = np.full((2, 2), 0.25)  # every cell at the fair share: the colour scale spans 25 +- 1 points
    svg = heatmap_chart([0, 1], [0, 1], m, m - 0.1, m + 0.1, row_label="a", col_label="b", title="r: seat 4 (%)",
                        scale=100.0, centre=0.25)  # fmt: skip
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert not any("1e" in t for t in texts), texts
    assert "26.0" in texts and "24.0" in texts


def test_compare_page_shows_both_variants_seat_rates_and_says_which_seat_moved():
    from balancer.report.compare import render_comparison_html

    comparison = {
        "game": "citywright", "variant_a": "v1.1", "variant_b": "v1.2", "n_players": 2, "games": 100,
        "confidence": 0.95, "paired": True,
        "seat_win_rate": [_seat(1, 0.5, 0.6, True) | {"ci_low": 0.05, "ci_high": 0.15},
                          _seat(2, 0.5, 0.4, True) | {"ci_low": -0.15, "ci_high": -0.05}],
    }  # fmt: skip
    summaries = {"a": {"seat_win_rate": [{"seat": 1, "rate": 0.5, "ci_low": 0.4, "ci_high": 0.6}]}, "b": None}
    html = render_comparison_html(comparison, summaries)
    assert "Seat win rates of both variants" in html
    assert "Seat 1 moved up 10.0 percentage points (50.0% → 60.0%); seat 2 moved down 10.0" in html


def test_a_published_marker_sits_beside_the_whisker_not_on_its_cap():
    """Issue 50: a published value at the top of our interval hid the whisker's cap; the marker is
    drawn a third of a bar to the right of the bar's centre (where the whisker and its cap are)."""
    fig = figs.grouped_bars(
        ["seat 1", "seat 2"], [("v1.1", [0.5, 0.5], [0.45, 0.45], [0.55, 0.55])], ylabel="y",
        scale=100.0, published=[[0.55, None]],
    )  # fmt: skip
    ax = fig.get_axes()[0]
    bar = ax.patches[0]
    centre = bar.get_x() + bar.get_width() / 2
    ((x, y),) = ax.collections[-1].get_offsets()
    assert y == pytest.approx(55.0) and x - centre == pytest.approx(0.3 * 0.8, rel=0.05)


def test_the_study_page_says_not_significant_in_grey_and_one_interval_notation():
    text = (Path(__file__).resolve().parents[2] / "balancer/report/templates/study.html.j2").read_text()
    assert ".unclear { color: #5f6368; }" in text  # muted grey, not amber (#8a6d00 read as a warning)
    assert "]</span>" not in text and " to {{" in text  # "(a to b)" everywhere, no "[a–b]" nor "[a, b]"


def test_tune_reference_lines_are_drawn_above_the_whiskers():
    """Issue 50 item 8 (the base line hidden under whiskers), left on the tune page: the fair share of
    its response panels (sweep's line chart) and the trajectory's 'best at the top rung so far' were
    drawn at or under the whiskers' zorder (2, and 2 + rung in the trajectory)."""
    from types import SimpleNamespace

    from balancer.report.figures.tune import trajectory_chart
    from balancer.report.publish import collecting

    rates = [("seat 1", [0.50, 0.52], [0.45, 0.47], [0.55, 0.57])]
    with collecting() as found:
        line_chart([0, 1], rates, xlabel="x", ylabel="y", title="t", scale=100.0, fair=0.5)
    ax = found[0][0].get_axes()[0]
    fair = [line for line in ax.get_lines() if line.get_label().startswith("fair share")][0]
    assert fair.get_zorder() > max(c.get_zorder() for c in ax.collections)

    def ev(objective):  # one evaluation: objective with a 95% interval of +/- 0.1, 10 games
        return SimpleNamespace(objective=objective, low=objective - 0.1, high=objective + 0.1, games={"r": 10})

    candidates = [
        SimpleNamespace(index=0, evaluations=[ev(0.5), ev(0.4)]),
        SimpleNamespace(index=1, evaluations=[ev(0.6)]),
    ]
    trials = [{"trial": 0, "candidate": 0, "rung": 1}, {"trial": 1, "candidate": 1, "rung": 0}]
    result = SimpleNamespace(candidates=candidates, trials=trials, plan=SimpleNamespace(rungs={"r": [10, 20]}))
    with collecting() as found:
        trajectory_chart(result)
    ax = found[0][0].get_axes()[0]
    (step,) = [line for line in ax.get_lines() if line.get_label() == "best at the top rung so far"]
    whiskers = [c.get_zorder() for c in ax.collections]
    assert whiskers and step.get_zorder() > max(whiskers)
