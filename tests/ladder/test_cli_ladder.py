"""``balancer ladder`` and a ladder study file through typer's CliRunner: bad input gets one line,
exit 2 and nothing written; good input writes the report, the study file, and plays each cell once."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from balancer.cli import app

runner = CliRunner()

STUDY = """\
study: lad
title: a ladder
game: ladderstandin
seed: 3
variants: {{base: base.yaml}}
ladder:
  {ladder}
"""


def _errors(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("error:")]


def _lines(result) -> list[str]:
    """Output lines besides the note a cold engine cache prints before a probe game."""
    return [line for line in result.output.strip().splitlines() if not line.startswith("note: compiling")]


def _nothing_written(tmp_path: Path) -> None:
    assert not (tmp_path / "results").exists()
    assert not (tmp_path / "out").exists()


def _ladder(tmp_path: Path, base: Path, *args: str):
    return runner.invoke(
        app,
        [
            "ladder",
            str(base),
            *args,
            "--results",
            str(tmp_path / "results"),
            "-o",
            str(tmp_path / "out" / "ladder.html"),
            "--jobs",
            "1",
            "--quiet",
        ],
    )


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--agents", "weak,nobody", "--players", "2"], "--agents: unknown agent 'nobody'; known agents: weak, mid"),
        (["--agents", "weak,mid,weak", "--players", "2"], "--agents: 'weak' is listed twice"),
        (["--agents", "weak", "--players", "2"], "--agents: a ladder needs at least two rungs"),
        (["--agents", "weak,mid", "--players", "3", "--games", "100"], "--games: 100 is not a multiple of 3"),
        (["--agents", "weak,mid", "--players", "2,4", "--games", "102"], "--games: 102 is not a multiple of 4"),
        (["--agents", "weak,mid", "--players", "5"], "--players: 5 players are not supported"),
        (["--agents", "weak,mid"], "--players: give the player count"),
        (["--agents", "weak,mid", "--players", "1"], "--players: a ladder is played at 2 to 8 players, got 1"),
        (["--agents", "weak,mid", "--players", "2", "--name", "../x"], "--name: '../x': letters, digits"),
    ],
)
def test_bad_ladder_commands(ladder_game, tmp_path, args, expected):
    result = _ladder(tmp_path, ladder_game, *args)
    assert result.exit_code == 2, result.output
    errors = _errors(result)
    assert len(errors) == 1 and len(_lines(result)) == 1, result.output
    assert expected in errors[0], errors[0]
    _nothing_written(tmp_path)


@pytest.mark.parametrize(
    "ladder, expected",
    [
        ("{rungs: [weak, nobody], players: 2, games: 10}", "ladder.rungs under base: unknown agent 'nobody'"),
        ("{rungs: [weak, mid], players: 5, games: 10}", "ladder.players under base: 5 players are not supported"),
        ("{rungs: [weak, weak], players: 2, games: 10}", "ladder.rungs: 'weak' is listed twice"),
        ("{rungs: [weak], players: 2, games: 10}", "ladder.rungs: a ladder needs at least two rungs"),
        ("{rungs: [weak, mid], players: [2, 3], games: 10}", "ladder.games: 10 is not a multiple of 3"),
        ("{rungs: [weak, mid], players: 2, games: 10, rounds: 3}", "ladder.rounds: unknown key 'rounds'"),
        (
            "{rungs: [weak, mid], players: 2, games: 10, published: {'3': [30, 30, 40]}}",
            "ladder.published.3: not a player count of the ladder",
        ),
        (
            "{rungs: [weak, mid], players: 2, games: 10, published: {'other/2': [50, 50]}}",
            "ladder.published.other/2: 'other' is not a variant of the study (base)",
        ),
    ],
)
def test_bad_ladder_study_files(ladder_game, tmp_path, ladder, expected):
    study = tmp_path / "configs" / "ladder.yaml"
    study.write_text(STUDY.format(ladder=ladder), encoding="utf-8")
    for command in (
        [
            "study",
            str(study),
            "-o",
            str(tmp_path / "out" / "r.html"),
            "--results",
            str(tmp_path / "results"),
            "--jobs",
            "1",
            "--quiet",
        ],
        ["validate", str(study)],
    ):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        errors = _errors(result)
        assert len(errors) == 1 and len(_lines(result)) == 1, result.output
        assert str(study) in errors[0] and expected in errors[0], errors[0]
        _nothing_written(tmp_path)


def test_ladder_command_writes_report_and_study_file_that_replays_it(ladder_game, tmp_path):
    result = _ladder(
        tmp_path,
        ladder_game,
        "--agents",
        "weak,strong",
        "--players",
        "2,4",
        "--games",
        "200",
        "--bootstrap",
        "50",
        "--name",
        "lad",
    )
    assert result.exit_code == 0, result.output
    html = (tmp_path / "out" / "ladder.html").read_text(encoding="utf-8")
    for heading in (
        "Seat win rates by rung",
        "Match-ups",
        "Ratings",
        "Skill depth",
        "Definitions",
        "base, 2 players",
        "base, 4 players",
        "Plackett-Luce",
        "Bradley-Terry",
    ):
        assert heading in html, heading
    study = tmp_path / "results" / "lad" / "ladder.yaml"
    assert study.is_file() and "skill depth" in result.output
    cells = sorted(p.name for p in (tmp_path / "results" / "lad").iterdir() if p.is_dir())
    # 2 players: two mirrors and one pair; 4 players: two mirrors and both one-against-three tables
    assert cells == [
        "ladder-2p-mirror-strong",
        "ladder-2p-mirror-weak",
        "ladder-2p-weak-vs-strong",
        "ladder-4p-mirror-strong",
        "ladder-4p-mirror-weak",
        "ladder-4p-strong-vs-weak",
        "ladder-4p-weak-vs-strong",
    ]
    replay = runner.invoke(
        app,
        [
            "study",
            str(study),
            "-o",
            str(tmp_path / "out" / "again.html"),
            "--results",
            str(tmp_path / "results"),
            "--jobs",
            "1",
        ],
    )
    assert replay.exit_code == 0, replay.output
    assert replay.output.count("finished earlier, reused") == 7
    assert (tmp_path / "out" / "again.html").is_file()
    ok = runner.invoke(app, ["validate", str(study)])
    assert ok.exit_code == 0 and "ladder-4p-weak-vs-strong" in ok.output


def test_baseline_and_check_work_on_a_ladder_study(ladder_game, tmp_path):
    study = tmp_path / "configs" / "ladder.yaml"
    study.write_text(STUDY.format(ladder="{rungs: [weak, strong], players: 2, games: 400}"), encoding="utf-8")
    baseline = tmp_path / "b.json"
    saved = runner.invoke(
        app,
        [
            "baseline",
            "save",
            str(study),
            "-o",
            str(baseline),
            "--results",
            str(tmp_path / "results"),
            "--jobs",
            "1",
            "--quiet",
        ],
    )
    assert saved.exit_code == 0, saved.output
    assert "3 cells" in saved.output
    checked = runner.invoke(
        app,
        [
            "check",
            str(study),
            "--baseline",
            str(baseline),
            "--jobs",
            "1",
            "--quiet",
            "--tolerance-win-rate",
            "0.15",
            "--allow-underpowered",  # 40-game cells: a verdict is what this test is after
        ],
    )
    assert checked.exit_code in (0, 1), checked.output  # a verdict, not bad input
    assert "ladder-2p-weak-vs-strong" in checked.output


def test_rungs_at_plays_fewer_rungs_at_one_player_count(ladder_game, tmp_path):
    # rungs weak, mid, strong at 2 players (3 mirrors + 3 pairs) and only weak, strong at 4 (2 mirrors
    # + 2 one-against-three tables): 10 cells
    study = tmp_path / "configs" / "ladder.yaml"
    study.write_text(
        STUDY.format(
            ladder="{rungs: [weak, mid, strong], players: [2, 4], games: 40, bootstrap: 20, "
            "rungs_at: {'4': [weak, strong]}}"
        ),
        encoding="utf-8",
    )
    result = runner.invoke(
        app,
        [
            "study",
            str(study),
            "-o",
            str(tmp_path / "out" / "r.html"),
            "--results",
            str(tmp_path / "results"),
            "--jobs",
            "1",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "10 cells" in result.output
    assert not (tmp_path / "results" / "lad" / "ladder-4p-mirror-mid").exists()
    html = (tmp_path / "out" / "r.html").read_text(encoding="utf-8")
    assert "weak → mid → strong" in html and "weak → strong" in html
    for ladder, expected in (
        ("rungs_at: {'4': [strong, weak]}", "rungs_at.4: keep the order of rungs"),
        ("rungs_at: {'4': [weak, top]}", "rungs_at.4: 'top' is not one of the rungs"),
        ("rungs_at: {'3': [weak, mid]}", "rungs_at.3: not a player count of the ladder"),
    ):
        study.write_text(
            STUDY.format(ladder="{rungs: [weak, mid, strong], players: [2, 4], games: 40, " + ladder + "}"),
            encoding="utf-8",
        )
        bad = runner.invoke(app, ["validate", str(study)])
        assert bad.exit_code == 2 and f"ladder.{expected}" in bad.output, bad.output


def test_a_ladder_of_a_built_in_variant_writes_a_study_file_that_finds_it(tmp_path, monkeypatch):
    # `balancer ladder citywright/v1.1` from a folder without a citywright/ subfolder: the study file
    # it writes names the built-in variant, so it plays (the path would have pointed at ./citywright/v1.1)
    monkeypatch.chdir(tmp_path)
    args = ["ladder", "citywright/v1.1", "--agents", "random,greedy", "--players", "2", "--games", "4"]
    args += ["-o", str(tmp_path / "l.html"), "--results", str(tmp_path / "r"), "--bootstrap", "10", "-q"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    study = yaml.safe_load((tmp_path / "r" / "ladder-citywright-v1.1" / "ladder.yaml").read_text())
    assert study["variants"] == {"v1.1": "citywright/v1.1"}
    assert (tmp_path / "l.html").is_file()


def test_ladder_figures_and_tables_are_captioned_with_games_agents_and_seed(ladder_game, tmp_path):
    """Issue 50, publishing: 'ladder --figures DIR --tables DIR' (untested until now): every figure as
    SVG, PNG and PDF and every table as CSV, listed in captions.md with the ladder's seed, rungs
    (agents) and games per cell; the ratings' intervals as numbers apart in the CSV."""
    import csv
    import re

    figures, tables = tmp_path / "figs", tmp_path / "tabs"
    result = _ladder(
        tmp_path, ladder_game, "--agents", "weak,strong", "--players", "2", "--games", "100", "--bootstrap", "20",
        "--name", "lad", "--figures", str(figures), "--tables", str(tables),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    svgs = sorted(p.stem for p in figures.glob("*.svg"))
    assert svgs and svgs == sorted(p.stem for p in figures.glob("*.pdf"))
    csvs = sorted(tables.glob("*.csv"))
    assert csvs
    for folder, names in ((figures, [f"{s}.svg" for s in svgs]), (tables, [p.name for p in csvs])):
        lines = [
            line for line in (folder / "captions.md").read_text(encoding="utf-8").splitlines() if line.startswith("- `")
        ]
        assert sorted(line[3 : line.index("`", 3)] for line in lines) == sorted(names)
        for line in lines:
            assert "seed: " in line and "agents: weak → strong" in line and "games: 100 per cell" in line, line
    headers = []
    for path in csvs:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        headers += rows[0]
        assert not any(re.fullmatch(r"[-+−\d.,%]+ \([-+−\d.,%]+ to [-+−\d.,%]+\)", c) for r in rows for c in r), path
    assert any(h.endswith(" low") for h in headers) and any(h.endswith(" high") for h in headers)
    # every row names its rung (a new user's scores-by-seat.csv left it blank on each rung's second seat)
    for path in csvs:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        if rows[0][:2] == ["rung", "seat"]:
            assert rows[1:] and all(r[0] for r in rows[1:]), path
