"""Win rates, intervals and the seat test against values worked out by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest
from scipy import stats

from balancer.sim.results import write_summary
from balancer.stats import seat_uniformity_p, summarize, wilson_interval

Z95 = 1.959963984540054  # norm.ppf(0.975); z^2 = 3.8414588206941254


# --------------------------------------------------------------------------- Wilson interval


def test_wilson_five_of_ten() -> None:
    # p = 0.5, n = 10, z^2/n = 0.38414588
    # centre = (p + z^2/2n) / (1 + z^2/n) = 0.69207294 / 1.38414588 = 0.5
    # half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2)
    #        = 1.41600969 * sqrt(0.025 + 0.00960365) = 1.41600969 * 0.18602056 = 0.26340691
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.23659309, abs=1e-8)
    assert high == pytest.approx(0.76340691, abs=1e-8)


def test_wilson_zero_and_all() -> None:
    # 0/10: low = 0, high = (z^2/n) / (1 + z^2/n) = 0.38414588 / 1.38414588 = 0.27753280
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.27753280, abs=1e-8)
    # 10/10 mirrors it: low = 1 / (1 + z^2/n) = 0.72246720, high = 1
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.72246720, abs=1e-8)
    assert high == 1.0


def test_wilson_fractional_successes() -> None:
    # 2.5 wins in 4 games (a shared win counts 1/2): p = 0.625, z^2/n = 0.96036471
    # centre = (0.625 + 0.48018235) / 1.96036471 = 0.56376365
    # half   = (1.95996398 / 1.96036471) * sqrt(0.625*0.375/4 + 0.96036471/16)
    #        = 0.99979559 * sqrt(0.05859375 + 0.06002279) = 0.99979559 * 0.34440753 = 0.34433713
    low, high = wilson_interval(2.5, 4)
    assert low == pytest.approx(0.56376365 - 0.34433713, abs=1e-7)
    assert high == pytest.approx(0.56376365 + 0.34433713, abs=1e-7)


def test_wilson_other_confidence_is_wider() -> None:
    low95, high95 = wilson_interval(30, 100, 0.95)
    low99, high99 = wilson_interval(30, 100, 0.99)
    assert low99 < low95 < 0.3 < high95 < high99


@pytest.mark.parametrize(("successes", "n"), [(1, 0), (-0.5, 4), (5, 4)])
def test_wilson_rejects_bad_counts(successes: float, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n)


# --------------------------------------------------------------------------- summarize


def four_games() -> pl.DataFrame:
    """4 games x 2 seats, agents alternate seats; game 1 is a shared win.

    game  seat1 (agent, share)  seat2 (agent, share)   metric_m    score (x + y)
    0     A 1.0                 B 0.0                  1, 3        10 (6+4), 5 (5+0)
    1     B 0.5                 A 0.5                  2, 2         7 (7+0), 7 (0+7)
    2     A 0.0                 B 1.0                  4, 6         3 (3+0), 9 (9+0)
    3     B 1.0                 A 0.0                  0, 2         8 (8+0), 2 (2+0)
    """
    return pl.DataFrame(
        {
            "variant": ["v"] * 8,
            "game": ["toy"] * 8,
            "n_players": [2] * 8,
            "game_index": [0, 0, 1, 1, 2, 2, 3, 3],
            "seed": [7] * 8,
            "seat": [1, 2] * 4,
            "agent": ["A", "B", "B", "A", "A", "B", "B", "A"],
            "score": [10, 5, 7, 7, 3, 9, 8, 2],
            "rank": [1, 2, 1, 1, 2, 1, 1, 2],
            "win_share": [1.0, 0.0, 0.5, 0.5, 0.0, 1.0, 1.0, 0.0],
            "turns": [5] * 8,
            "score_x": [6, 5, 7, 0, 3, 9, 8, 2],
            "score_y": [4, 0, 0, 7, 0, 0, 0, 0],
            "metric_m": [1.0, 3.0, 2.0, 2.0, 4.0, 6.0, 0.0, 2.0],
        }
    )


META = {"game": "toy", "variant": "v", "n_players": 2, "seed": 7, "games": 4}


def test_summarize_win_rates_by_hand() -> None:
    s = summarize(four_games().lazy(), META)
    assert (s["game"], s["variant"], s["n_players"], s["games"], s["seed"], s["rows"]) == (
        "toy",
        "v",
        2,
        4,
        7,
        8,
    )
    # seat 1: 1 + 0.5 + 0 + 1 = 2.5 of 4; seat 2: 0 + 0.5 + 1 + 0 = 1.5 of 4
    seats = {r["seat"]: r for r in s["seat_win_rate"]}
    assert seats[1]["rate"] == 0.625 and seats[1]["games"] == 4
    assert seats[2]["rate"] == 0.375 and seats[2]["games"] == 4
    assert (seats[1]["ci_low"], seats[1]["ci_high"]) == pytest.approx(wilson_interval(2.5, 4))
    # A: 1 (g0) + 0.5 (g1) + 0 + 0 = 1.5 of 4 appearances; B: 0 + 0.5 + 1 + 1 = 2.5 of 4
    agents = {r["agent"]: r for r in s["agent_win_rate"]}
    assert agents["A"]["rate"] == 0.375 and agents["A"]["games"] == 4
    assert agents["B"]["rate"] == 0.625
    # one game (game 1) of four has a shared win
    assert s["tied_games_share"] == 0.25
    assert s["tied_games"] == 1


def test_summarize_metrics_by_hand() -> None:
    s = summarize(four_games(), META)  # eager input works too
    m = s["metrics"]["m_per_player"]
    # per-player mean = (1+3+2+2+4+6+0+2)/8 = 20/8 = 2.5
    # games, not players, are independent: per-game means 2, 2, 5, 1 (mean 2.5)
    # deviations -0.5 -0.5 2.5 -1.5 -> sum of squares 9, var 9/3 = 3, se = sqrt(3/4) = 0.86602540
    # t(0.975, 3) = 3.18244631 -> half-width 2.75607935 (treating the 8 players as independent
    # would give 1.548: too narrow, since the two players of a game move together)
    assert m["mean"] == 2.5
    assert m["ci_low"] == pytest.approx(2.5 - 2.75607935, abs=1e-7)
    assert m["ci_high"] == pytest.approx(2.5 + 2.75607935, abs=1e-7)
    assert m["n"] == 8 and m["games"] == 4


def test_metric_interval_counts_games_once_when_a_metric_is_per_game() -> None:
    # a per-game metric (the same number on both seats) must get the interval of 4 observations,
    # not of 8: values 2, 2, 5, 1 per game give the same interval as above
    df = four_games().with_columns(pl.Series("metric_m", [2.0, 2.0, 2.0, 2.0, 5.0, 5.0, 1.0, 1.0]))
    m = summarize(df, META)["metrics"]["m_per_player"]
    assert m["mean"] == 2.5
    assert m["ci_high"] - m["mean"] == pytest.approx(2.75607935, abs=1e-7)


def test_metric_interval_with_a_missing_value_uses_the_ratio_estimator() -> None:
    # game 3's seat 2 value missing (NaN): s_g = 4, 4, 10, 0 over k_g = 2, 2, 2, 1 -> r = 18/7
    # residuals s_g - r k_g = -8/7, -8/7, 34/7, -18/7 -> sum of squares (64+64+1156+324)/49 = 1608/49
    # var(r) = G/(G-1) * 1608/49 / K^2 = 4/3 * 1608/49 / 49 -> se = 0.77224...
    df = four_games().with_columns(pl.Series("metric_m", [1.0, 3.0, 2.0, 2.0, 4.0, 6.0, 0.0, float("nan")]))
    m = summarize(df, META)["metrics"]["m_per_player"]
    se = (4 / 3 * 1608 / 49) ** 0.5 / 7
    assert m["mean"] == pytest.approx(18 / 7) and m["n"] == 7 and m["games"] == 4
    assert m["ci_high"] - m["mean"] == pytest.approx(3.18244631 * se, abs=1e-7)


def test_summarize_score_breakdown_by_hand() -> None:
    s = summarize(four_games(), META)
    assert s["score_components"] == ["x", "y"]
    by_agent = {r["agent"]: r for r in s["score_by_agent"]}
    # A scores 10, 7, 3, 2 -> mean 5.5; x: 6+0+3+2 = 11 -> 2.75; y: 4+7 = 11 -> 2.75
    assert by_agent["A"]["mean"] == 5.5
    assert by_agent["A"]["components"] == {"x": 2.75, "y": 2.75}
    assert by_agent["A"]["n"] == 4
    # B scores 5, 7, 9, 8 -> 7.25, sd = sqrt((5.0625+0.0625+3.0625+0.5625)/3) = sqrt(35/12)
    half = 3.1824463052837078 * math.sqrt(35 / 12) / 2
    assert by_agent["B"]["ci_low"] == pytest.approx(7.25 - half)
    assert by_agent["B"]["ci_high"] == pytest.approx(7.25 + half)
    by_seat = {r["seat"]: r for r in s["score_by_seat"]}
    # seat 1 scores 10, 7, 3, 8 -> 7.0; y: 4 -> 1.0
    assert by_seat[1]["mean"] == 7.0
    assert by_seat[1]["components"] == {"x": 6.0, "y": 1.0}


def test_summarize_discovers_prefixed_columns_only() -> None:
    df = four_games().rename({"score_x": "score_alpha", "metric_m": "metric_beta"})
    s = summarize(df, META)
    assert s["score_components"] == ["alpha", "y"]
    assert list(s["metrics"]) == ["beta_per_player"]


def test_summarize_rejects_missing_columns_and_empty() -> None:
    with pytest.raises(ValueError, match="win_share"):
        summarize(four_games().drop("win_share"), META)
    with pytest.raises(ValueError, match="empty"):
        summarize(four_games().clear(), META)


# --------------------------------------------------------------------------- seat test


def test_seat_uniformity_in_summary() -> None:
    # seat wins 2.5 vs 1.5, expected 2 each: chi2 = (0.25 + 0.25) / 2 = 0.25 with 1 df
    s = summarize(four_games(), META)
    assert s["seat_uniformity_p"] == pytest.approx(stats.chi2.sf(0.25, 1))


def test_seat_uniformity_perfectly_uniform_is_one() -> None:
    df = four_games().with_columns(pl.Series("win_share", [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]))
    s = summarize(df, META)
    assert s["seat_uniformity_p"] == 1.0
    assert seat_uniformity_p([10, 10, 10]) == 1.0


def lopsided_games() -> pl.DataFrame:
    """100 three-player games: seat 1 wins 60, seat 2 wins 25, seat 3 wins 15."""
    winners = [1] * 60 + [2] * 25 + [3] * 15
    return pl.DataFrame(
        {
            "game_index": [g for g in range(100) for _ in range(3)],
            "seat": [1, 2, 3] * 100,
            "agent": ["greedy"] * 300,
            "score": [1] * 300,
            "win_share": [1.0 if seat == w else 0.0 for w in winners for seat in (1, 2, 3)],
        }
    )


def test_seat_uniformity_lopsided_matches_scipy() -> None:
    # expected 100/3 each: chi2 = (26.667^2 + 8.333^2 + 18.333^2) / 33.333 = 33.5 with 2 df,
    # and for 2 df the chi-square survival function is exp(-x/2) = exp(-16.75) = 5.3158e-8
    s = summarize(lopsided_games(), {"n_players": 3})
    assert s["seat_uniformity_p"] == pytest.approx(math.exp(-16.75), rel=1e-9)
    assert s["seat_uniformity_p"] == pytest.approx(stats.chisquare([60, 25, 15]).pvalue)
    assert [r["rate"] for r in s["seat_win_rate"]] == [0.6, 0.25, 0.15]
    assert s["metrics"] == {} and s["score_components"] == []
    assert s["tied_games_share"] == 0.0


def test_seat_uniformity_undefined() -> None:
    assert seat_uniformity_p([3.0]) is None
    assert seat_uniformity_p([0.0, 0.0]) is None


# --------------------------------------------------------------------------- write_summary


def write_run(directory: Path, df: pl.DataFrame, meta: dict = META) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    df.write_parquet(directory / "results.parquet")
    (directory / "run.json").write_text(json.dumps(meta))
    return directory


def test_write_summary_writes_strict_json(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", four_games())
    summary = write_summary(run)
    on_disk = json.loads((run / "summary.json").read_text(), parse_constant=pytest.fail)
    assert on_disk == summary
    assert on_disk["seat_win_rate"][0]["rate"] == 0.625


def test_write_summary_reads_parquet_parts(tmp_path: Path) -> None:
    run = tmp_path / "parts"
    run.mkdir()
    df = four_games()
    df.slice(0, 4).write_parquet(run / "part-0.parquet")
    df.slice(4, 4).write_parquet(run / "part-1.parquet")
    (run / "run.json").write_text(json.dumps(META))
    assert write_summary(run)["games"] == 4


def test_write_summary_missing_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run.json"):
        write_summary(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps(META))
    with pytest.raises(FileNotFoundError, match="results.parquet"):
        write_summary(tmp_path)


def test_a_metric_one_game_moved_keeps_a_finite_interval_without_a_warning() -> None:
    # 200 three-player games, the metric 12 on every seat but one seat of game 0 (11): rulers placed in a
    # Citywright study of random players. 37% of bootstrap resamples miss game 0 and have se* = 0, so
    # t* is -infinite there and the bootstrap-t has no lower quantile (the summary stored a missing
    # ci_low, with numpy's 'invalid value encountered in subtract'); the t interval is kept instead.
    # By hand: per-game sums 36 (199 games) and 35, k = 3, r = 7199/600; residuals 36 - 3r = 0.005 and
    # 35 - 3r = -0.995, sum of squares 0.995; se = sqrt(200/199 x 0.995) / 600.
    import warnings

    games = 200
    df = pl.DataFrame(
        {
            "variant": ["v"] * (3 * games),
            "game": ["toy"] * (3 * games),
            "n_players": [3] * (3 * games),
            "game_index": [g for g in range(games) for _ in range(3)],
            "seed": [7] * (3 * games),
            "seat": [1, 2, 3] * games,
            "agent": ["A"] * (3 * games),
            "score": [1] * (3 * games),
            "rank": [1, 2, 3] * games,
            "win_share": [1.0, 0.0, 0.0] * games,
            "turns": [5] * (3 * games),
            "metric_m": [11.0] + [12.0] * (3 * games - 1),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = summarize(df, {**META, "n_players": 3, "games": games})["metrics"]["m_per_player"]
    r = 7199 / 600
    se = math.sqrt(200 / 199 * 0.995) / 600
    half = stats.t.ppf(0.975, games - 1) * se
    assert m["mean"] == pytest.approx(r)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx((r - half, r + half), abs=1e-9)
