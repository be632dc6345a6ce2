"""Win rates by label and the 2-player match-up matrix, on results tables written by hand."""

from __future__ import annotations

import math

import polars as pl
import pytest

from balancer.stats.labels import matchup_matrix, win_rate_by_label


def results(games: list[tuple[str, str, float]]) -> pl.DataFrame:
    """Long results of 2-player games: (deck of seat 1, deck of seat 2, win_share of seat 1)."""
    rows = []
    for i, (a, b, w) in enumerate(games):
        rows.append({"game_index": i, "n_players": 2, "seat": 1, "win_share": w, "label_deck": a})
        rows.append({"game_index": i, "n_players": 2, "seat": 2, "win_share": 1.0 - w, "label_deck": b})
    return pl.DataFrame(rows)


# 4 games: ibex (seat 1) beats bull twice, loses once; bull (seat 1) beats ibex once; one shared win.
GAMES = [
    ("ibex", "bull", 1.0),
    ("ibex", "bull", 1.0),
    ("ibex", "bull", 0.0),
    ("bull", "ibex", 1.0),
    ("ibex", "ibex", 0.5),
]


def test_win_rate_by_label():
    df = win_rate_by_label(results(GAMES), "deck")
    by = {r["value"]: r for r in df.iter_rows(named=True)}
    # ibex seats: games 0-2 (seat 1: 1, 1, 0), game 3 (seat 2: 0), game 4 twice (0.5 + 0.5): 3 wins of 6
    assert by["ibex"]["games"] == 6 and by["ibex"]["wins"] == 3.0 and by["ibex"]["rate"] == 0.5
    # bull seats: games 0-2 (seat 2: 0, 0, 1), game 3 (seat 1: 1): 2 of 4
    assert by["bull"]["games"] == 4 and by["bull"]["rate"] == 0.5
    assert by["bull"]["ci_low"] < 0.5 < by["bull"]["ci_high"]


def test_win_rate_by_label_and_seat():
    """A split by seat: ibex in seat 1 played games 0-2 and 4 (wins 1, 1, 0, 0.5): 2.5 of 4."""
    df = win_rate_by_label(results(GAMES), "deck", by=("seat",))
    row = df.filter((pl.col("value") == "ibex") & (pl.col("seat") == 1)).row(0, named=True)
    assert row["games"] == 4 and row["rate"] == 2.5 / 4
    with pytest.raises(ValueError, match="'table'"):
        win_rate_by_label(results(GAMES), "deck", by=("table",))


def test_matchup_matrix_by_seat_order():
    first = {(r["row"], r["col"]): r for r in matchup_matrix(results(GAMES), "deck", "first").iter_rows(named=True)}
    assert first[("ibex", "bull")]["games"] == 3 and math.isclose(first[("ibex", "bull")]["rate"], 2 / 3)
    assert first[("bull", "ibex")]["rate"] == 1.0 and first[("bull", "ibex")]["ci_high"] == 1.0
    second = {(r["row"], r["col"]): r for r in matchup_matrix(results(GAMES), "deck", "second").iter_rows(named=True)}
    assert second[("bull", "ibex")]["games"] == 3 and math.isclose(second[("bull", "ibex")]["rate"], 1 / 3)
    assert second[("ibex", "bull")]["rate"] == 0.0
    pooled = {(r["row"], r["col"]): r for r in matchup_matrix(results(GAMES), "deck").iter_rows(named=True)}
    # ibex against bull in both orders: 2 wins of 3 as seat 1, 0 of 1 as seat 2 -> 2 of 4
    assert pooled[("ibex", "bull")]["games"] == 4 and pooled[("ibex", "bull")]["rate"] == 0.5
    assert pooled[("ibex", "ibex")]["games"] == 2 and pooled[("ibex", "ibex")]["rate"] == 0.5  # the mirror


def test_matchup_errors():
    with pytest.raises(ValueError, match="labels: deck"):
        matchup_matrix(results(GAMES), "shop")
    with pytest.raises(ValueError, match="order"):
        matchup_matrix(results(GAMES), "deck", "third")
    three = results(GAMES).with_columns(pl.lit(3).alias("n_players"))
    with pytest.raises(ValueError, match="2-player"):
        matchup_matrix(three, "deck")


def test_win_rate_by_label_counts_games_not_seats_as_independent():
    """Games as clusters. ibex per game (wins S_g, seats K_g): (1,1) (1,1) (0,1) (0,1) and game 4
    twice (0.5+0.5 = 1, 2). r = 3/6 = 1/2; sum (S_g - r K_g)^2 = 4 x 1/4 + (1 - 1)^2 = 1; G = 5, so
    the cluster variance is 5/4 x 1 / 36 = 0.034722 against the binomial 1/4 / 6 = 0.041667:
    design effect 5/6, and Wilson's interval at 6 / (5/6) = 7.2 seats with 3.6 wins.
    bull: four games, one seat each, S = 0, 0, 1, 1: sum = 4 x 1/4 = 1, variance 4/3 x 1 / 16 =
    1/12 against 1/16: design effect 4/3 = G/(G-1), Wilson at 3 seats with 1.5 wins."""
    from balancer.stats.aggregate import wilson_interval

    by = {r["value"]: r for r in win_rate_by_label(results(GAMES), "deck").iter_rows(named=True)}
    assert math.isclose(by["ibex"]["design_effect"], 5 / 6)
    assert (by["ibex"]["ci_low"], by["ibex"]["ci_high"]) == pytest.approx(wilson_interval(3.6, 7.2, 0.95))
    assert math.isclose(by["bull"]["design_effect"], 4 / 3)
    assert (by["bull"]["ci_low"], by["bull"]["ci_high"]) == pytest.approx(wilson_interval(1.5, 3.0, 0.95))
