"""``balancer sweep`` and ``balancer tune`` through typer's CliRunner: a bad file gets one line naming the
file and key, exit 2 and nothing written; good files write the report (and the tuned variant)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.sweep import load_sweep
from balancer.tune import load_tune

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

SWEEP = """\
sweep: s
title: a sweep
base: base.yaml
seed: 1
runs:
  two: {{players: 2, agents: [roller], games: 40}}
paths:
  {path}: {values}
target:
  {target}
"""

TUNE = """\
tune: t
title: a tune
base: base.yaml
seed: 1
runs:
  two: {{players: 2, agents: [{agents}], games: 90}}
space:
  {space}
objective:
  {objective}
search: {{rungs: 2, eta: 3}}
budget: {{candidates: 4}}
confirm: {{games: 40}}
response: {{steps: 1}}
"""


def _invoke(tmp_path: Path, kind: str, text: str, *extra: str):
    file = tmp_path / "configs" / f"{kind}.yaml"
    file.write_text(text, encoding="utf-8")
    report = tmp_path / "out" / "report.html"
    return runner.invoke(
        app,
        [kind, str(file), "-o", str(report), "--results", str(tmp_path / "results"), "--jobs", "1", "--quiet", *extra],
    ), report


def _errors(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("error:")]


def _other_lines(result) -> list[str]:
    """Output lines besides the error and the note a cold engine cache prints before a probe game."""
    return [line for line in result.output.splitlines() if not line.startswith(("error:", "note: compiling"))]


def _nothing_written(tmp_path: Path) -> None:
    assert not (tmp_path / "results").exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "path, values, target, expected",
    [
        ("bonus.5[0]", "[1, 2]", "seat_win_rate: equal", "paths.bonus.5[0]: no key '5' under bonus; keys there: 2, 4"),
        ("bonus.2[2]", "[1, 2]", "seat_win_rate: equal", "paths.bonus.2[2]: bonus.2 has 2 values: [2] does not exist"),
        (
            "bonus.2[1]",
            "[1, -1]",
            "seat_win_rate: equal",
            "paths.bonus.2[1]: bonus.2[1]=-1 is refused: bonus.2: a bonus is at least 0",
        ),
        (
            "faces",
            "[6, 6.5]",
            "seat_win_rate: equal",
            "paths.faces: faces=6.5 is refused: faces: input should be a valid integer, got 6.5",
        ),
        ("bonus.2[1]", "[]", "seat_win_rate: equal", "paths.bonus.2[1]: no values to try"),
        (
            "bonus.2[1]",
            "[1, 2]",
            "nope_per_player: {at_most: 3}",
            "target.nope_per_player: the game reports no metric 'nope'",
        ),
        (
            "bonus.2[1]",
            "[1, 2]",
            "seat_win_rate:3: equal",
            "target.seat_win_rate:3: seat_win_rate:3: the run has 2 seats",
        ),
        ("bonus.2[1]", "[1, 2]", "agent_win_rate: equal", "target.agent_win_rate: a mirror table of roller"),
        ("bonus.2[1]", "[1, 2]", "die_per_player: equal", "target.die_per_player: equal applies to win rates only"),
    ],
)
def test_bad_sweep_files(standin, tmp_path, path, values, target, expected):
    result, _ = _invoke(tmp_path, "sweep", SWEEP.format(path=path, values=values, target=target))
    assert result.exit_code == 2, result.output
    errors = _errors(result)
    assert len(errors) == 1 and _other_lines(result) == [], result.output
    assert str(tmp_path / "configs" / "sweep.yaml") in errors[0] and expected in errors[0], errors[0]
    _nothing_written(tmp_path)


@pytest.mark.parametrize(
    "space, objective, agents, expected",
    [
        ("{}", "seat_win_rate: equal", "roller", "space: empty: give at least one YAML path"),
        (
            "bonus.2[1]: {int: [3, 1]}",
            "seat_win_rate: equal",
            "roller",
            "space.bonus.2[1]: empty: low 3 is above high 1",
        ),
        (
            "bonus.2[1]: {choices: []}",
            "seat_win_rate: equal",
            "roller",
            "space.bonus.2[1]: empty: give at least one choice",
        ),
        ("bonus.3[1]: {int: [0, 3]}", "seat_win_rate: equal", "roller", "space.bonus.3[1]: no key '3' under bonus"),
        (
            # 2**63 + 1 values: refused while the file is read (it crashed the search with a traceback)
            "bonus.2[1]: {int: [0, 9223372036854775808]}",
            "seat_win_rate: equal",
            "roller",
            "space.bonus.2[1]: from 0 to 9223372036854775808 by 1 is 9,223,372,036,854,775,809 values; at most 10,000",
        ),
        ("bonus.2[1]: {int: [-2, 3]}", "seat_win_rate: equal", "roller", "space.bonus.2[1]: bonus.2[1]=-2 is refused"),
        ("bonus.2[1]: {int: [0, 3]}", "{}", "roller", "objective: empty: give at least one target"),
        (
            "bonus.2[1]: {int: [0, 3]}",
            "score_per_player: {at_least: 1}",
            "roller",
            "objective.score_per_player: the game reports no metric 'score'; its metrics are die",
        ),
        (
            "bonus.2[1]: {int: [0, 3]}",
            "agent_win_rate:greedy: equal",
            "roller, lucky",
            "objective.agent_win_rate:greedy: 'greedy' does not sit at the table (roller, lucky)",
        ),
        (
            "bonus.2[1]: {int: [0, 3]}",
            "seat_win_rate: {between: [0.6, 0.4]}",
            "roller",
            "objective.seat_win_rate: between: low must be below high",
        ),
    ],
)
def test_bad_tune_files(standin, tmp_path, space, objective, agents, expected):
    result, _ = _invoke(tmp_path, "tune", TUNE.format(space=space, objective=objective, agents=agents))
    assert result.exit_code == 2, result.output
    errors = _errors(result)
    assert len(errors) == 1 and _other_lines(result) == [], result.output
    assert str(tmp_path / "configs" / "tune.yaml") in errors[0] and expected in errors[0], errors[0]
    _nothing_written(tmp_path)


def test_bad_citywright_sweep_is_refused_before_any_game(tmp_path):
    text = (
        SWEEP.format(path="seat_bonus.4[4]", values="[0, 1]", target="seat_win_rate: equal")
        .replace("base: base.yaml", f"base: {ROOT / 'configs' / 'citywright' / 'v1.1.yaml'}")
        .replace("roller", "greedy")
    )
    (tmp_path / "configs").mkdir()
    result, _ = _invoke(tmp_path, "sweep", text)
    assert result.exit_code == 2
    assert "paths.seat_bonus.4[4]: seat_bonus.4 has 4 values: [4] does not exist" in result.output
    _nothing_written(tmp_path)


def test_sweep_and_tune_write_their_reports(standin, tmp_path):
    result, report = _invoke(
        tmp_path, "sweep", SWEEP.format(path="bonus.2[1]", values="{from: 2, to: 4}", target="seat_win_rate: equal")
    )
    assert result.exit_code == 0, result.output
    assert report.is_file() and "target seat_win_rate: equal:" in result.output
    folder = load_sweep(tmp_path / "configs" / "sweep.yaml", probe=False).folder  # standin-s-<hash of its path>
    assert sorted(p.name for p in (tmp_path / "results" / folder / "variants").iterdir()) == [
        "2.yaml",
        "3.yaml",
        "4.yaml",
    ]
    # the page names the user's files relative to itself (out/report.html -> ../configs/...), never
    # by an absolute, machine-local path
    page = report.read_text(encoding="utf-8")
    assert str(tmp_path) not in page
    assert "<code>../configs/sweep.yaml</code>" in page and "../configs/base.yaml" in page
    report.unlink()
    tuned = tmp_path / "configs" / "tuned.yaml"
    # 3 equalises the seats exactly; a noisier space could end on a candidate that fails its
    # confirmation, which --write refuses (tests/tune/test_tune_safe.py)
    text = TUNE.format(space="bonus.2[1]: {choices: [3]}", objective="seat_win_rate: equal", agents="roller")
    result, report = _invoke(tmp_path, "tune", text, "--write", str(tuned))
    assert result.exit_code == 0, result.output
    assert report.is_file() and tuned.is_file()
    assert tuned.read_text().startswith("# Tuned by balancer: ")
    assert "extends: base.yaml" in tuned.read_text()
    page = report.read_text(encoding="utf-8")
    assert str(tmp_path) not in page
    assert "<code>../configs/tune.yaml</code>" in page and "../configs/tuned.yaml" in page
    # --write refuses to overwrite; --resume with a finished search simply replays it
    again, _ = _invoke(tmp_path, "tune", text, "--write", str(tuned))
    assert again.exit_code == 2 and "--write" in again.output and "already exists" in again.output


def test_resume_needs_a_search_and_an_interrupted_one_needs_resume(standin, tmp_path):
    text = TUNE.format(space="bonus.2[1]: {int: [0, 5]}", objective="seat_win_rate: equal", agents="roller")
    result, _ = _invoke(tmp_path, "tune", text, "--resume")
    assert result.exit_code == 2 and "no search of 't' to continue" in result.output
    state = tmp_path / "results" / load_tune(tmp_path / "configs" / "tune.yaml", probe=False).folder / "search.json"
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"status": "running"}))
    result, _ = _invoke(tmp_path, "tune", text)
    assert result.exit_code == 2 and "continue it with --resume" in result.output
    result, report = _invoke(tmp_path, "tune", text, "--resume")
    assert result.exit_code == 0, result.output
    assert json.loads(state.read_text())["status"] == "finished"


@pytest.mark.parametrize("kind", ["sweep", "tune"])
def test_a_yaml_error_reads_the_same_in_validate_and_in_the_command(standin, tmp_path, kind):
    """Issue 31: ``validate`` and ``sweep``/``tune`` say "YAML syntax error" (not "not valid YAML") for
    the same file. The file's line 2 is ``runs: [unclosed``: the flow sequence is never closed, which
    PyYAML reports at the end of the file (line 3, column 1)."""
    file = tmp_path / "configs" / f"{kind}.yaml"
    file.write_text(f"{kind}: x\nruns: [unclosed\n", encoding="utf-8")
    own = runner.invoke(app, [kind, str(file), "--results", str(tmp_path / "results"), "--quiet"])
    checked = runner.invoke(app, ["validate", str(file)])
    expected = f"error: {file}:3:1: YAML syntax error: "
    for result in (own, checked):
        assert result.exit_code == 2
        assert _errors(result)[0].startswith(expected), result.output
        assert "not valid YAML" not in result.output


def test_sweep_figures_and_tables_are_named_and_captioned_with_games_agents_and_seed(standin, tmp_path):
    """Issue 50, publishing: 'sweep --figures DIR --tables DIR' (untested until now): every figure as
    SVG, PNG and PDF and every table as CSV, each listed in captions.md with the sweep's game, seed,
    agents and games per point (the page's facts); an interval column's numbers apart (low, high)."""
    import csv
    import re

    figures, tables = tmp_path / "figs", tmp_path / "tabs"
    result, _ = _invoke(
        tmp_path,
        "sweep",
        SWEEP.format(path="bonus.2[1]", values="{from: 2, to: 4}", target="seat_win_rate: equal"),
        "--figures", str(figures), "--tables", str(tables),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    svgs = sorted(p.stem for p in figures.glob("*.svg"))
    assert svgs and svgs == sorted(p.stem for p in figures.glob("*.png")) == sorted(
        p.stem for p in figures.glob("*.pdf")
    )
    csvs = sorted(tables.glob("*.csv"))
    assert csvs
    for folder, names in ((figures, [f"{s}.svg" for s in svgs]), (tables, [p.name for p in csvs])):
        lines = [
            line for line in (folder / "captions.md").read_text(encoding="utf-8").splitlines() if line.startswith("- `")
        ]
        assert sorted(line[3 : line.index("`", 3)] for line in lines) == sorted(names)
        for line in lines:
            assert "seed: 1" in line and "two: 2 players, agents roller, 40 games per point" in line, line
    for path in csvs:  # no cell of a CSV holds an interval as text ('a to b' alone in a cell)
        with open(path, encoding="utf-8", newline="") as f:
            assert not any(re.fullmatch(r"[-+−\d.,%]+ to [-+−\d.,%]+", cell) for row in csv.reader(f) for cell in row)
