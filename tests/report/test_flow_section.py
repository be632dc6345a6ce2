"""The run report's "How the game feels" (issue 49, balancer/report/flow.py and flow_section.html.j2): from
results.parquet alone today, with the trajectory measures when the run directory holds a
trajectories.parquet (a synthetic one here, as the engine does not write it yet), and a broken
trajectories file refused in one line naming it, with no page written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import polars as pl
import pytest

from balancer.report import render_report
from balancer.sim.results import ResultsFileError
from balancer.stats.flow import TRAJECTORY_SCHEMA
from tests.report.test_render import META, results

# results(): game 0 seat 1 wins 10-5; game 1 a shared win 7-7; game 2 seat 2 wins 9-3; game 3 seat 1 wins 8-2
# trajectories, 3 checkpoints (seat 1, seat 2):
#   game 0: (1,0) (1,2) (10,5)   sole leaders 1, 2, 1: 2 lead changes; midpoint (3-1)//2 = 1: seat 1 last and won
#           (a comeback); seat 2 (lost) leads at checkpoint 1: decided at (1+2)/3 = 1
#   game 1: (0,0) (3,3) (7,7)    all tied throughout: no change, no comeback (all tied at the midpoint), both won:
#           decided at 1/3
#   game 2: (0,1) (2,4) (3,9)    seat 2 throughout: no change; seat 1 last at the midpoint lost; decided at 1/3
#   game 3: (2,0) (4,1) (8,2)    seat 1 throughout: likewise
# leader wins: k0 (1 + .5 + 1 + 1)/4 = 87.5%, k1 (0 + .5 + 1 + 1)/4 = 62.5%, k2 87.5%
# lead changes mean 2/4 = 0.50; comebacks 1/4 = 25.0%; decided at mean (1 + 3 * 1/3)/4 = 0.50
STANDINGS = {
    0: [(1, 0), (1, 2), (10, 5)],
    1: [(0, 0), (3, 3), (7, 7)],
    2: [(0, 1), (2, 4), (3, 9)],
    3: [(2, 0), (4, 1), (8, 2)],
}


def trajectories() -> pl.DataFrame:
    rows = [
        ("v1.1", 2, g, k, s, float(x))
        for g, game in STANDINGS.items()
        for k, pair in enumerate(game)
        for s, x in enumerate(pair, start=1)
    ]
    return pl.DataFrame(rows, schema=dict(TRAJECTORY_SCHEMA), orient="row")


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "results"
    directory.mkdir()
    results().write_parquet(directory / "results.parquet")
    (directory / "run.json").write_text(json.dumps(META))
    return directory


def section(html: str) -> str:
    start = html.index('<section id="flow">')
    return html[start : html.index("</section>", start)]


def cells(html: str, measure: str) -> list[str]:
    row = re.search(rf"<tr><td>{re.escape(measure)}</td>(.*?)</tr>", html, flags=re.S)
    assert row, measure
    return [" ".join(c.split()) for c in re.findall(r"<td>(.*?)</td>", row.group(1), flags=re.S)]


def test_from_results_alone(run_dir: Path, tmp_path: Path) -> None:
    flow = section(render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8"))
    assert "How the game feels" in flow
    # margins 10-5 = 5, 7-7 = 0, 9-3 = 6, 8-2 = 6: mean 4.25, median 5.5, one tied on points, one shared win
    assert cells(flow, "margin (points)")[0] == "4.25" and cells(flow, "margin (points)")[2] == "5.50"
    assert "1 of 4 games ended with the top two tied on" in flow and "1 had a shared win" in flow
    # length: 5 turns in every game
    assert cells(flow, "length (turns)")[:3] == ["5.00", "5.00 to 5.00", "5.00"]
    # two figures (margin and length; scores by seat), and the note that the trajectory measures need a file
    assert flow.count("<svg") == 2 and 'id="flow-no-trajectories"' in flow
    assert "comebacks" not in flow.split('id="flow-no-trajectories"')[0]


def test_with_trajectories(run_dir: Path, tmp_path: Path) -> None:
    trajectories().write_parquet(run_dir / "trajectories.parquet")
    flow = section(render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8"))
    assert cells(flow, "lead changes per game")[0] == "0.50"
    assert cells(flow, "decided at (share of the game)")[0] == "0.50"
    assert cells(flow, "comebacks (% of games)")[0] == "25.0"
    assert "flow-no-trajectories" not in flow
    # the leader-wins curve and the decided-at / lead-change histograms join the two figures
    assert flow.count("<svg") == 4
    assert "(1 of 4) is none" in flow  # game 1, all tied at the midpoint


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda p: p.write_bytes(b"not parquet"), "cannot be read as Parquet"),
        (lambda p: trajectories().filter(pl.col("checkpoint") != 1).write_parquet(p), "not every seat at every"),
        (lambda p: trajectories().drop("standing").write_parquet(p), "lack column(s): standing"),
        (lambda p: trajectories().with_columns(pl.col("game_index") + 7).write_parquet(p), "which the results do not"),
        (lambda p: p.mkdir(), "not a regular file"),
        (lambda p: os.symlink(p.parent / "nowhere", p), "not a regular file"),
    ],
)
def test_a_broken_trajectories_file_is_named_and_no_page_written(
    run_dir: Path, tmp_path: Path, damage, message
) -> None:
    path = run_dir / "trajectories.parquet"
    damage(path)
    with pytest.raises(ResultsFileError) as err:
        render_report(run_dir, tmp_path / "r.html")
    text = str(err.value)
    assert text.startswith(str(path)) and message in text and "\n" not in text
    assert not (tmp_path / "r.html").exists()


def test_trajectories_cut_after_the_run_are_refused_or_said(run_dir: Path, tmp_path: Path) -> None:
    """Tried as a new user would (issue 49): trajectories.parquet cut to fewer games, or to none, after the
    run had written summary.json: the page showed other numbers than summary.json, or dropped the trajectory
    measures, without a word. Now summary.json's flow.trajectory.games (4 here) must match the file, as its
    games and seat win rates must match the results: one line naming it, no page. Without summary.json (the
    report recomputes it) the page says over how many games the trajectory measures are."""
    path = run_dir / "trajectories.parquet"
    trajectories().write_parquet(path)
    render_report(run_dir, tmp_path / "first.html")  # writes summary.json
    assert json.loads((run_dir / "summary.json").read_text())["flow"]["trajectory"]["games"] == 4
    for kept in (1, 0):
        trajectories().filter(pl.col("game_index") < kept).write_parquet(path)
        with pytest.raises(ResultsFileError) as err:
            render_report(run_dir, tmp_path / "r.html")
        text = str(err.value)
        assert text.startswith(str(run_dir / "summary.json")) and f"{path} gives {kept} (of 4)" in text, text
        assert "\n" not in text and not (tmp_path / "r.html").exists()
        (run_dir / "summary.json").unlink()
        flow = section(render_report(run_dir, tmp_path / f"r{kept}.html").read_text(encoding="utf-8"))
        if kept:  # game 0 alone: sole leaders 1, 2, 1, two lead changes
            assert "over the games with a trajectory in trajectories.parquet: 1 of the 4." in " ".join(flow.split())
            assert cells(flow, "lead changes per game")[0] == "2.00"
        else:
            assert "trajectories.parquet holds no game of these results" in flow and "lead changes per game" not in flow
        trajectories().write_parquet(path)
        (run_dir / "summary.json").unlink()
        render_report(run_dir, tmp_path / f"whole{kept}.html")  # summary.json of the whole file again


def test_a_run_played_with_no_flow_says_so(run_dir: Path, tmp_path: Path) -> None:
    """run.json's flow false (balancer run --no-flow): the page names the option, where it said only that
    the run kept no trajectories."""
    (run_dir / "run.json").write_text(json.dumps({**META, "flow": False}))
    flow = section(render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8"))
    note = " ".join(flow.split('id="flow-no-trajectories">')[1].split())
    assert note.startswith("This run kept no trajectories (trajectories.parquet): it was played with --no-flow.")
    assert "run it again without --no-flow" in note


def test_checkpoints_that_few_games_reach_are_not_drawn_and_the_caption_says_so(tmp_path: Path) -> None:
    """Tried as a new user would (issue 49): Urgency's curve ran to round 145, which one game of 200
    reached, and its late whiskers (21 to 100%) filled the figure. 40 two-player games, seat 1 winning
    10-5: games 0-9 have 3 checkpoints, the others 2, so checkpoint 3 (index 2) holds 10 games, fewer than
    MIN_CURVE_GAMES = 20: the figure draws checkpoints 1 and 2 only, and the caption says why."""
    from balancer.report.figures.flow import MIN_CURVE_GAMES

    assert MIN_CURVE_GAMES == 20
    directory = tmp_path / "results"
    directory.mkdir()
    games = 40
    res = pl.DataFrame(
        {
            "variant": ["v1.1"] * 2 * games, "game": ["toy"] * 2 * games, "n_players": [2] * 2 * games,
            "game_index": [g for g in range(games) for _ in (1, 2)], "seed": [7] * 2 * games,
            "seat": [1, 2] * games, "agent": ["greedy"] * 2 * games, "score": [10, 5] * games,
            "rank": [1, 2] * games, "win_share": [1.0, 0.0] * games, "turns": [5] * 2 * games,
        }
    )  # fmt: skip
    res.write_parquet(directory / "results.parquet")
    (directory / "run.json").write_text(json.dumps({**META, "games": games}))
    rows = [
        ("v1.1", 2, g, k, s, float(x))
        for g in range(games)
        for k, pair in enumerate([(1, 0), (2, 0), (10, 5)] if g < 10 else [(1, 0), (10, 5)])
        for s, x in enumerate(pair, start=1)
    ]
    pl.DataFrame(rows, schema=dict(TRAJECTORY_SCHEMA), orient="row").write_parquet(directory / "trajectories.parquet")
    flow = section(render_report(directory, tmp_path / "r.html").read_text(encoding="utf-8"))
    caption = " ".join(flow.split("Share of games won by the seat leading")[1].split("</figcaption>")[0].split())
    assert "Checkpoints that fewer than 20 games reach (the last, 3) are not drawn" in caption, caption
    stored = json.loads((directory / "summary.json").read_text())["flow"]["trajectory"]["leader_wins"]
    assert [p["games"] for p in stored] == [40, 40, 10]  # summary.json keeps every checkpoint


def test_the_leader_wins_curve_has_its_numbers_in_a_table_and_a_csv(run_dir: Path, tmp_path: Path) -> None:
    """Tried as a new user would (issue 49): --tables wrote no file of the leader-wins curve (tables are read
    from the page, which drew it only). The four games of STANDINGS: leader won 87.5%, 62.5%, 87.5% at
    checkpoints 1-3 (worked out above), 4 games at each, one tied for the lead at each (game 1)."""
    from balancer.report.publish import collecting, publish

    trajectories().write_parquet(run_dir / "trajectories.parquet")
    with collecting() as figs:
        html = render_report(run_dir, tmp_path / "r.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td>(\d)</td><td>([\d.]+)</td><td>([^<]*)</td>\s*<td>(\d)</td><td>(\d)</td></tr>", html)
    assert [(k, rate, games, tied) for k, rate, _, games, tied in rows] == [
        ("1", "87.5", "4", "1"),
        ("2", "62.5", "4", "1"),
        ("3", "87.5", "4", "1"),
    ]
    out = publish(html, figs, tmp_path / "f", tmp_path / "t")
    assert "games-won-by-the-seat-leading-at-each-checkpoint.csv" in {p.name for p in out.tables}
    assert "games-won-by-the-seat-leading-at-each-checkpoint.svg" in {p.name for p in out.figures}


def test_a_search_table_records_trajectories_and_a_game_without_the_hooks_says_why(tmp_path: Path) -> None:
    """Tables with an mcts seat are played by the generic search loop, which records the trajectory
    through the kernel's record_checkpoint (issue 49): every shipped game's search run keeps
    trajectories.parquet. A game whose engine lacks the hooks (Citywright's here, with them taken
    away) keeps none: run.json says why, and the page says it where the leader-wins curve would be."""
    import dataclasses

    from balancer import api
    from balancer.games import citywright

    for game in ("citywright/v1.1", "agueda/v1", "urban_sketchers/base"):
        search = tmp_path / game.replace("/", "-")
        api.run(game, agents="mcts@2,greedy", games=2, out=search)
        assert (search / "trajectories.parquet").is_file(), game
        assert "no_trajectories" not in json.loads((search / "run.json").read_text())
    engine = dataclasses.replace(citywright.SPEC.engine, trajectory_buffer=None, record_checkpoint=None)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(citywright, "SPEC", dataclasses.replace(citywright.SPEC, engine=engine))
        out = tmp_path / "run"
        api.run("citywright/v1.1", agents="mcts@2,greedy", games=2, out=out)
    assert not (out / "trajectories.parquet").exists()
    why = json.loads((out / "run.json").read_text())["no_trajectories"]
    assert why.startswith("in Citywright, a table with an mcts seat is played by the generic"), why
    flow = section(render_report(out, tmp_path / "r.html").read_text(encoding="utf-8"))
    note = " ".join(flow.split('id="flow-no-trajectories">')[1].split())
    assert note.startswith(f"This run kept no trajectories (trajectories.parquet): {why}."), note
