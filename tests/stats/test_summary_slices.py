"""The summary of a lazy table is summed over slices of games (bounded memory) and equals, to the
last digit, the summary of the same table in one pass; the typed summary writes summary.json's keys
in the documented order."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from balancer.stats import aggregate
from balancer.stats import frames as aggregate_frames
from balancer.stats.aggregate import sum_over_games, summarize, summary_of
from balancer.stats.summary import ScoreMean, Summary

META = {"game": "toy", "variant": "v", "n_players": 3, "seed": 11}


def random_table(games: int = 60, seed: int = 3) -> pl.DataFrame:
    """``games`` three-player games with game indices 0..g/2-1 and 1000.. (a gap, as a resumed run
    may leave none but a filtered table can), shared wins, a float metric with a NaN and a null, an
    integer count, a 0/1 indicator and a seat-bonus score category; rows shuffled."""
    rng = np.random.default_rng(seed)
    index = [g if g < games // 2 else 1000 + g for g in range(games)]
    rows: dict[str, list] = {c: [] for c in ("game_index", "seat", "agent", "score", "win_share")}
    rows |= {"score_base": [], "score_seat_bonus": [], "metric_waste": [], "metric_moves": [], "metric_took": []}
    for g in index:
        base = rng.integers(0, 20, size=3)
        bonus = np.array([0, 1, 2])
        score = base + bonus
        best = score.max()
        winners = np.flatnonzero(score == best)
        for seat in range(3):
            rows["game_index"].append(g)
            rows["seat"].append(seat + 1)
            rows["agent"].append(["greedy", "random", "greedy"][(seat + g) % 3])
            rows["score"].append(int(score[seat]))
            rows["win_share"].append(1.0 / len(winners) if seat in winners else 0.0)
            rows["score_base"].append(int(base[seat]))
            rows["score_seat_bonus"].append(int(bonus[seat]))
            rows["metric_waste"].append(float(rng.normal(3.0, 2.0)))
            rows["metric_moves"].append(int(rng.integers(5, 9)))
            rows["metric_took"].append(int(rng.integers(0, 2)))
    df = pl.DataFrame(rows)
    df = df.with_columns(
        pl.when(pl.int_range(pl.len()) == 5).then(float("nan")).otherwise(pl.col("metric_waste")).alias("metric_waste")
    )
    df = df.with_columns(
        pl.when(pl.int_range(pl.len()) == 9).then(None).otherwise(pl.col("metric_waste")).alias("metric_waste")
    )
    return df.sample(fraction=1.0, shuffle=True, seed=seed)


def test_per_game_sums_over_slices_equal_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    df = random_table()
    path = tmp_path / "results.parquet"
    df.write_parquet(path, row_group_size=16)
    frames_seen: list[int] = []
    exact_total = aggregate_frames._exact_total

    def recording(frames: list[pl.DataFrame]) -> dict:
        frames_seen.append(len(frames))
        return exact_total(frames)

    monkeypatch.setattr(aggregate_frames, "_exact_total", recording)
    one_pass = summarize(df, META)  # an eager frame: one group-by over every game
    monkeypatch.setattr(aggregate_frames, "GAME_SLICE", 7)
    sliced = summarize(pl.scan_parquet(path), META)
    # games 0..29 and 1030..1059 in slices of 7 consecutive indices: ceil(1060 / 7) = 152 slices,
    # most of them empty (the gap); the two per-game queries (the metrics with the score by agent, in
    # the same passes, and the indicators) were sliced
    assert frames_seen.count(152) == 2
    assert sliced == one_pass
    assert sliced["metrics"]["waste_per_player"]["games"] == 60
    assert sliced["indicators"][0]["indicator"] == "took"


def test_sum_over_games_adds_integers_and_decimals_exactly() -> None:
    # three games: per-game sums of x are 0.1+0.2 = 0.3, 0.7 and 1e-9; their squares summed exactly
    # as decimals (scale 9): 0.09 + 0.49 + 0 (1e-18 rounds to 0) = 0.58; the count of rows is 5
    lf = pl.LazyFrame({"game_index": [0, 0, 1, 2, 2], "x": [0.1, 0.2, 0.7, 1e-9, 0.0]})
    dec = pl.Decimal(38, 9)
    per_game = [pl.col("x").cast(dec).sum().alias("s"), pl.len().cast(pl.Int64).alias("k")]
    totals = [
        (pl.col("s").cast(pl.Float64) ** 2).cast(dec).sum().alias("ss"),
        pl.col("k").sum().alias("K"),
        pl.col("s").sum().alias("S"),
    ]
    for width in (1, 2, 3, 100):
        rec = sum_over_games(lf, per_game, totals, slice_games=width)
        assert rec["K"] == 5
        assert str(rec["S"]) == "1.000000001"
        assert str(rec["ss"]) == "0.580000000"


def test_summary_json_keys_in_the_documented_order(tmp_path: Path) -> None:
    df = random_table(games=12)
    meta = META | {"metric_specs": None}
    summary = summary_of(df, meta)
    assert isinstance(summary, Summary)
    assert all(isinstance(r, ScoreMean) for r in summary.score_by_seat)
    data = json.loads(json.dumps(summary.as_json()))
    assert list(data)[:7] == ["game", "variant", "n_players", "games", "seed", "rows", "confidence"]
    assert list(data)[7:19] == [
        "seat_win_rate",
        "agent_win_rate",
        "metrics",
        "seat_uniformity_p",
        "tied_games_share",
        "tied_games",
        "tied_games_ci_low",
        "tied_games_ci_high",
        "score_components",
        "score_by_agent",
        "score_by_seat",
        "indicators",
    ]
    assert list(data["score_by_seat"][0]) == ["seat", "n", "mean", "ci_low", "ci_high", "components"]
    assert list(data["seat_win_rate"][0]) == ["seat", "rate", "ci_low", "ci_high", "games", "wins"]
    assert list(data["metrics"]["waste_per_player"]) == ["mean", "ci_low", "ci_high", "n", "games"]
    # the toy game declares no seat bonus: no score_without_*_by_seat key
    assert not any(k.startswith("score_without_") for k in data)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=2, max_size=6))
def test_seat_uniformity_is_scipys_chisquare_to_the_last_digit(wins: list[float]) -> None:
    # the summary forms Pearson's statistic and its tail with scipy.special (scipy.stats is not
    # imported by a run); the p-value must be scipy.stats.chisquare's exactly
    from scipy import stats

    got = aggregate.seat_uniformity_p(wins)
    total = sum(wins)
    if total <= 0:
        assert got is None
        return
    try:
        expected = float(stats.chisquare(wins, f_exp=[total / len(wins)] * len(wins)).pvalue)
    except ValueError:  # scipy refuses sums that differ in the last digits (e.g. 1e6 beside 1e-300)
        assume(False)
    assert got == (None if math.isnan(expected) else min(1.0, expected))


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_quantiles_are_scipy_stats_to_the_last_digit(confidence: float) -> None:
    from scipy import stats

    q = 0.5 + confidence / 2.0
    assert aggregate_frames._z(confidence) == float(stats.norm.ppf(q))
    for df in (1, 2, 3, 7, 30, 199, 10_000):
        low, high = aggregate_frames.mean_interval(0.0, 1.0, df + 1, confidence)
        assert high == float(stats.t.ppf(q, df=df)) * 1.0 / math.sqrt(df + 1)


def test_keys_far_apart_take_at_most_max_slices_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    # games 0, 1 and 10**9: slices of 2 keys would be 5*10**8 passes; with at most 4 passes each is
    # ceil((10**9 + 1) / 4) = 250,000,001 keys wide, so 4 passes, and the sums are those of one pass:
    # x sums 1 + 2 + 3 + 4 = 10 over 3 games, rows 4
    lf = pl.LazyFrame({"game_index": [0, 0, 1, 10**9], "x": [1, 2, 3, 4]})
    seen: list[int] = []
    exact_total = aggregate_frames._exact_total
    monkeypatch.setattr(
        aggregate_frames, "_exact_total", lambda frames: seen.append(len(frames)) or exact_total(frames)
    )
    monkeypatch.setattr(aggregate_frames, "MAX_SLICES", 4)
    per_game = [pl.col("x").sum().alias("s"), pl.len().cast(pl.Int64).alias("k")]
    totals = [pl.col("s").sum().alias("S"), pl.col("k").sum().alias("K"), pl.len().alias("G")]
    rec = sum_over_games(lf, per_game, totals, slice_games=2)
    assert seen == [4]
    assert (rec["S"], rec["K"], rec["G"]) == (10, 4, 3)
