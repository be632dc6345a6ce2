"""An unknown run named by a study's figure or by a sweep's target or a tune's objective is refused in
the first pass, beside the file's other problems, and before any game is played (issue 50): a field
error elsewhere (a seed below 0) kept the name from being checked, and a sweep checked its paths and
played a probe game of every run before it named the run that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.sweep.model import SweepError, load_sweep
from balancer.tune.model import load_tune

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"


def lines_of(args: list[str]) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, [line.removeprefix("error: ") for line in result.output.splitlines()]


def test_a_study_figure_naming_no_run_is_told_beside_a_bad_seed(tmp_path):
    study = tmp_path / "s.yaml"
    study.write_text(
        f"study: tiny\ntitle: Tiny\ngame: citywright\nseed: -1\nvariants:\n  v1.1: {V11}\n"
        "runs:\n  two: {players: 2, agents: [random], games: 20}\n"
        "figures:\n  - {title: A, run: two, show: nope}\n  - {title: B, run: three, show: seat_win_rate}\n",
        encoding="utf-8",
    )
    code, lines = lines_of(["study", str(study), "-o", str(tmp_path / "s.html"), "--results", str(tmp_path / "r")])
    assert code == 2
    # both figures' lines in one pass with the seed's (before: the seed's and the show's only)
    assert f"{study}: figures[1].run: unknown run 'three'; runs are two" in lines, lines
    assert any(line.startswith(f"{study}: seed: ") for line in lines), lines
    assert any(line.startswith(f"{study}: figures[0].show: ") for line in lines), lines
    assert not (tmp_path / "r").exists() and not (tmp_path / "s.html").exists()


SWEEP = f"""\
sweep: names
title: Names
base: {V11}
seed: SEED
runs:
  mirror-2p: {{players: 2, agents: [random], games: 20}}
paths:
  PATH
target:
  mirror-3p/wasted_tiles_per_player: {{at_most: 3}}
"""


def test_a_sweep_target_naming_no_run_is_told_beside_a_bad_seed(tmp_path):
    path = tmp_path / "sw.yaml"
    path.write_text(SWEEP.replace("SEED", "-3").replace("PATH", "seat_bonus.2[1]: {from: 0, to: 2}"), "utf-8")
    code, lines = lines_of(["sweep", str(path), "-o", str(tmp_path / "sw.html"), "--results", str(tmp_path / "r")])
    assert code == 2
    assert f"{path}: target.mirror-3p/wasted_tiles_per_player: unknown run 'mirror-3p'; runs are mirror-2p" in lines
    assert any(line.startswith(f"{path}: seed: ") for line in lines), lines
    assert not (tmp_path / "r").exists()


def test_a_sweep_target_naming_no_run_is_told_beside_a_bad_path_and_before_a_probe_game(tmp_path):
    # a metric target needs one probe game per run; the unknown run is refused before it, together with
    # a path the base does not have (before: the path's line alone, then a probe game, then the run's)
    path = tmp_path / "sw.yaml"
    path.write_text(SWEEP.replace("SEED", "3").replace("PATH", "seat_bonsu.2[1]: {from: 0, to: 2}"), "utf-8")
    probed: list[object] = []
    with pytest.raises(SweepError) as exc:
        load_sweep(path, jobs=1, on_probe=probed.append)
    lines = str(exc.value).splitlines()
    assert lines[0] == f"{path}: target.mirror-3p/wasted_tiles_per_player: unknown run 'mirror-3p'; runs are mirror-2p"
    assert any(line.startswith(f"{path}: paths.seat_bonsu.2[1]: ") for line in lines[1:]), lines
    assert probed == []


def test_a_tune_objective_naming_no_run_is_told_before_the_space_is_checked(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        f"tune: names\ntitle: Names\nbase: {V11}\nseed: 3\n"
        "runs:\n  mirror-2p: {players: 2, agents: [random], games: 40}\n"
        "space:\n  seat_bonsu.2[1]: {int: [0, 3]}\n"
        "objective:\n  mirror-3p/seat_win_rate: equal\nbudget: {games: 400}\n",
        encoding="utf-8",
    )
    with pytest.raises(SweepError) as exc:
        load_tune(path, jobs=1)
    lines = str(exc.value).splitlines()
    assert lines[0] == f"{path}: objective.mirror-3p/seat_win_rate: unknown run 'mirror-3p'; runs are mirror-2p"
    assert any(line.startswith(f"{path}: space.seat_bonsu.2[1]: ") for line in lines[1:]), lines
