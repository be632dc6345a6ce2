"""``baseline save`` of a study too small for its check warns (issue 50, a designer's second hour): saving
is fine, but the check that follows would stop with exit 2 ("needs about 28,012 games"), so the save
says it at once, one warning line with the games needed and the number that drives them, the same as
``check``'s refusal (by construction: both come from balancer.check.run's plan_cell / games_to_power)."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from balancer.cli import app

V11 = Path(__file__).resolve().parent.parent / "configs" / "citywright" / "v1.1.yaml"

STUDY = """\
study: tiny
title: tiny study
game: citywright
seed: 5
variants: {{v1.1: variant.yaml}}
runs:
  mirror-3p: {{players: 3, agents: [random], games: 30}}
check: {{tolerance: {{win_rate: {tol}}}, metrics: []}}
"""


def _study(folder: Path, tol: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "variant.yaml").write_text(f"extends: {V11}\n", encoding="utf-8")
    path = folder / "study.yaml"
    path.write_text(STUDY.format(tol=tol), encoding="utf-8")
    return path


def _save(study: Path, base: Path):
    args = ["baseline", "save", study, "-o", base, "--results", study.parent / "r", "-j", "1", "-q"]
    return CliRunner().invoke(app, [str(a) for a in args])


def test_saving_an_underpowered_baseline_warns_with_the_games_check_will_ask_for(tmp_path):
    # 30 games of a three-seat table against a 5-point tolerance: check needs about 2,900 games
    # (tests/test_history.py works it out by hand); the save exits 0 and says so in one line
    study, base = _study(tmp_path, 0.05), tmp_path / "base.json"
    saved = _save(study, base)
    assert saved.exit_code == 0 and base.exists(), saved.output
    warnings = [line for line in saved.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, saved.output
    line = warnings[0]
    assert "too few for its tolerances" in line and "the study plays 30 (runs.mirror-3p.games)" in line
    assert "driven by seat_win_rate:" in line and "at a tolerance of 5 points" in line
    need = re.search(r"mirror-3p/v1.1 needs a baseline and a check of about ([\d,]+) games each, driven by (\S+)", line)
    assert need is not None, line
    # the check then refuses with the same games and the same driving number
    refused = CliRunner().invoke(app, ["check", str(study), "--baseline", str(base), "-j", "1", "-q"])
    assert refused.exit_code == 2
    assert f"needs a baseline and a check of about {need[1]} games each" in refused.output
    assert f"driven by {need[2]}" in refused.output


def test_a_baseline_large_enough_for_its_tolerance_saves_without_a_warning(tmp_path):
    # a 90-point tolerance: 2 s^2 ((c + z) / 0.9)^2 with s^2 <= 0.25 and c + z about 4.6 is about 13
    # games, fewer than the 30 played, so check would not refuse and nothing is said
    study, base = _study(tmp_path, 0.9), tmp_path / "base.json"
    saved = _save(study, base)
    assert saved.exit_code == 0, saved.output
    assert "warning" not in saved.output and saved.output.startswith("baseline: ")
