"""A study's timings keep the warm-up apart from play (issue 50, a designer's second hour): a study page
said "playing them took 357 s of computing" where 350 s was numba compiling. Each run now records its
warm-up in run.json (``warmup_seconds``: RunProgress's clock, play excluded), and the study page and
terminal give play and warm-up apart."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from balancer.cli import app

V11 = Path(__file__).resolve().parent.parent / "configs" / "citywright" / "v1.1.yaml"

STUDY = f"""
study: warm
title: "Warm-up apart"
game: citywright
seed: 3
variants: {{v1.1: {V11}}}
runs:
  mirror-2p: {{players: 2, agents: [random], games: 8}}
"""


def test_the_warm_up_is_recorded_and_reported_apart_from_play(tmp_path):
    study = tmp_path / "warm.yaml"
    study.write_text(STUDY, encoding="utf-8")
    page = tmp_path / "s.html"
    args = ["study", study, "-o", page, "--results", tmp_path / "results", "--jobs", "1", "--quiet"]
    first = CliRunner().invoke(app, [str(a) for a in args])
    assert first.exit_code == 0, first.output
    (run_json,) = (tmp_path / "results").rglob("run.json")
    meta = json.loads(run_json.read_text(encoding="utf-8"))
    assert 0 <= meta["warmup_seconds"] <= meta["elapsed_seconds"], meta  # part of the run's time
    # the user's case, set by hand in the reused cell's run.json: 357 s of which 350 s warm-up, so
    # 357 - 350 = 7 s of play (whole seconds on the page and the terminal)
    meta.update(elapsed_seconds=357.0, warmup_seconds=350.0)
    run_json.write_text(json.dumps(meta), encoding="utf-8")
    again = CliRunner().invoke(app, [str(a) for a in args])
    assert again.exit_code == 0, again.output
    html = page.read_text(encoding="utf-8")
    assert "playing them took 7 s of computing, after 350 s of warm-up (numba compiling" in html
    assert "357 s of computing" not in html
    assert "playing them took 7 s, after 350 s of warm-up (numba compiling or loading the engines)" in again.output


def test_the_terminal_text_of_ladders_and_studies_keeps_the_warm_up_apart():
    # PlayedCells.took_text, used by `study` and `ladder`: two cells of 357 s and 43 s, the first with
    # 350 s of warm-up, the second recording none (counted as play): 7 + 43 = 50 s of play
    from balancer.outcomes import Cell, StudyResult

    def cell(meta: dict) -> Cell:
        return Cell("r", "v", Path("c.yaml"), Path("out"), meta=meta)

    cells = {
        ("a", "v"): cell({"elapsed_seconds": 357.0, "warmup_seconds": 350.0}),
        ("b", "v"): cell({"elapsed_seconds": 43.0}),
    }
    result = StudyResult(study=None, study_path=Path("s.yaml"), cells=cells, wall_seconds=1.0)
    assert result.took_text() == "50 s, after 350 s of warm-up (numba compiling or loading the engines)"
    cells[("a", "v")].meta["warmup_seconds"] = "350"  # a hand-edited run.json: not a number, not counted
    assert result.took_text() == "400 s"
