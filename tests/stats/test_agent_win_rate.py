"""Agent win rates count games, not seats, as the independent units (issue 15).

An agent's seats at one table are not independent: at `greedy,greedy,random,random` at most one greedy
seat wins a game. The interval of an agent's rate per seat is the Wilson interval of its share of a
game (a proportion over games) divided by the seats it holds per game; in a mirror table the rate is
1/n by construction and its interval that point.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from balancer.core.tables import seat_agents
from balancer.sim.batches import WinTally, half_width
from balancer.stats import summarize
from balancer.stats.aggregate import agent_win_rate_row

Z2 = 1.959963984540054**2  # 3.8414588206941254


def table(agents: list[str], games: int, winner) -> pl.DataFrame:
    """Results of ``games`` rotated games of ``agents`` (by seat, game 0); ``winner(i, seats)`` gives the
    winning seat (0-based) of game i."""
    rows = {"game_index": [], "seat": [], "agent": [], "score": [], "win_share": []}
    n = len(agents)
    for i in range(games):
        seats = seat_agents(agents, i)
        w = winner(i, seats)
        for s in range(n):
            rows["game_index"].append(i)
            rows["seat"].append(s + 1)
            rows["agent"].append(seats[s])
            rows["score"].append(10 if s == w else 0)
            rows["win_share"].append(1.0 if s == w else 0.0)
    return pl.DataFrame(rows)


def test_greedy_greedy_random_random_interval_derived_by_hand():
    # 400 games of greedy,greedy,random,random in which a greedy seat wins every game (the issue's
    # table). Per seat: greedy wins 400 of its 800 appearances (0.5), random 0 of 800. Counting seats
    # as trials gave greedy Wilson(400, 800) = [46.5%, 53.5%], as if its 0.5 could have been 0.47.
    # Games as units: greedy's share of a game is 1 in each of the 400 games, Wilson(400, 400) =
    # [1 / (1 + z^2/400), 1] = [400 / 403.84146, 1] = [0.990488, 1]; it holds 2 seats per game, so
    # per seat [0.495244, 0.5]. Random's share is 0 in every game: Wilson(0, 400) =
    # [0, (z^2/400) / (1 + z^2/400)] = [0, 3.84146 / 403.84146] = [0, 0.009512]; per seat [0, 0.004756].
    df = table(["greedy", "greedy", "random", "random"], 400, lambda i, seats: seats.index("greedy"))
    s = summarize(df, {"n_players": 4, "seed": 1})
    rows = {r["agent"]: r for r in s["agent_win_rate"]}
    g, r = rows["greedy"], rows["random"]
    assert (g["rate"], g["games"], g["seats"], g["wins"]) == (0.5, 400, 800, 400.0)
    assert g["ci_low"] == pytest.approx(400 / (400 + Z2) / 2, abs=1e-12)
    assert g["ci_low"] == pytest.approx(0.495244, abs=1e-6) and g["ci_high"] == 0.5
    assert (r["rate"], r["games"], r["seats"]) == (0.0, 400, 800)
    assert r["ci_low"] == 0.0 and r["ci_high"] == pytest.approx(Z2 / (400 + Z2) / 2, abs=1e-12)
    assert r["ci_high"] == pytest.approx(0.004756, abs=1e-6)
    assert not g["by_construction"] and not r["by_construction"]


def test_mixed_table_with_real_uncertainty_by_hand():
    # A,B (one seat each), 100 games: A wins games 0..59. Each agent holds one seat per game, so games
    # and seats coincide: A's interval is the plain Wilson(60, 100) (p = 0.6, z^2/n = 0.0384146):
    # centre = (0.6 + 0.0192073) / 1.0384146 = 0.5963007, half = 1.959964 / 1.0384146 *
    # sqrt(0.0024 + 0.0000960365) = 1.887458 * 0.0499603 = 0.0942981 -> [0.502003, 0.690599].
    df = table(["A", "B"], 100, lambda i, seats: seats.index("A") if i < 60 else seats.index("B"))
    rows = {r["agent"]: r for r in summarize(df, {"n_players": 2, "seed": 1})["agent_win_rate"]}
    assert rows["A"]["ci_low"] == pytest.approx(0.502003, abs=1e-5)
    assert rows["A"]["ci_high"] == pytest.approx(0.690599, abs=1e-5)
    assert rows["A"]["design_effect"] == pytest.approx(1.0)


def test_mirror_table_rate_is_one_over_n_by_construction():
    # 400 four-player games of one agent: 1600 seats, 400 games; the rate is 1/4 in every game, so
    # its interval is the point 0.25 (the issue: "games: 1600", 22.9-27.2 around 25% by construction)
    df = table(["greedy"] * 4, 400, lambda i, seats: i % 4)
    (row,) = summarize(df, {"n_players": 4, "seed": 1})["agent_win_rate"]
    assert row["games"] == 400 and row["seats"] == 1600
    assert row["rate"] == row["ci_low"] == row["ci_high"] == 0.25 and row["by_construction"]


def test_shared_wins_stay_inside_the_games_interval():
    # a greedy seat and a random seat share every win (1/2 each): greedy's game share is 1/2 in every
    # game; Wilson(200, 400) / 2 seats: p = 0.5, centre 0.5, half = 1.959964 / 1.0096037 *
    # sqrt(0.000625 + 0.0000060024) = 1.941326 * 0.0251198 = 0.048766 -> [0.451234, 0.548766] / 2
    rows = []
    for i in range(400):
        seats = seat_agents(["greedy", "greedy", "random", "random"], i)
        g, r = seats.index("greedy"), seats.index("random")
        rows += [
            {"game_index": i, "seat": s + 1, "agent": seats[s], "score": 0, "win_share": 0.5 if s in (g, r) else 0.0}
            for s in range(4)
        ]
    out = {r["agent"]: r for r in summarize(pl.DataFrame(rows), {"n_players": 4, "seed": 1})["agent_win_rate"]}
    assert out["greedy"]["rate"] == 0.25
    assert out["greedy"]["ci_low"] == pytest.approx(0.451234 / 2, abs=1e-5)
    assert out["greedy"]["ci_high"] == pytest.approx(0.548766 / 2, abs=1e-5)


def test_row_refuses_impossible_counts():
    with pytest.raises(ValueError):
        agent_win_rate_row("a", 1.0, 1, 0, False)
    with pytest.raises(ValueError):
        agent_win_rate_row("a", 1.0, 3, 4, False)


def test_until_ci_measures_agents_like_the_summary():
    # --until-ci stops on the same interval the summary reports: a greedy share of 1 in all 400 games
    agents = ["greedy", "greedy", "random", "random"]
    df = table(agents, 400, lambda i, seats: seats.index("greedy"))
    tally = WinTally(agents)
    tally.add(pa.table({"win_share": df["win_share"].to_numpy(), "agent": df["agent"].to_list()}))
    share, games, per_game = tally.rates()["agent greedy"]
    assert (share, games, per_game) == (1.0, 400, 2.0)
    row = next(r for r in summarize(df, {"n_players": 4, "seed": 1})["agent_win_rate"] if r["agent"] == "greedy")
    assert half_width(share, games, per_game) == pytest.approx((row["ci_high"] - row["ci_low"]) / 2, abs=1e-12)
    assert np.isclose(half_width(share, games, per_game), (0.5 - 0.495244) / 2, atol=1e-6)


def test_check_counts_an_agent_once_per_game():
    # balancer check (and baseline save) track agent_win_rate:<agent> as one value per game: the mean
    # win share of the agent's seats in that game. Greedy winning every game of the table is
    # 0.5 in each of the 400 games: mean 0.5, variance 0, 400 units (not 800 seats of 0 or 1).
    from balancer.check.values import moments, per_game_values

    agents = ["greedy", "greedy", "random", "random"]
    df = table(agents, 400, lambda i, seats: seats.index("greedy"))
    values = per_game_values(df.to_arrow(), agents)
    assert moments(values["agent_win_rate:greedy"]) == (400, 0.5, 0.0)
    assert moments(values["agent_win_rate:random"]) == (400, 0.0, 0.0)
