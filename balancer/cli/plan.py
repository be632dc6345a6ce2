"""``balancer plan``: how many games a balance check needs, number by number, before playing any."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from balancer import api

from .app import _fail, app
from .errors import library_errors, terminal_text


@app.command()
def plan(
    study_file: Path = typer.Argument(..., help="Study YAML file, or a shipped one by name (citywright/ci)."),
    baseline: Path | None = typer.Option(
        None,
        "--baseline",
        "-b",
        metavar="JSON",
        help="Plan from this baseline's numbers (their variances and targets, as 'check' tests them) and "
        "also give the games per check against it [default: from the study alone, win rates at the fair share].",
    ),
    false_alarm: float | None = typer.Option(
        None, "--false-alarm", help="Chance that an unchanged study fails, over all numbers [default: the study's]."
    ),
    miss_rate: float | None = typer.Option(
        None, "--miss-rate", help="Chance of passing a change as large as the tolerance [default: the study's]."
    ),
    tolerance_win_rate: float | None = typer.Option(
        None, "--tolerance-win-rate", help="Smallest win-rate change to find, as a fraction [default: the study's]."
    ),
    tolerance_metric_sd: float | None = typer.Option(
        None,
        "--tolerance-metric-sd",
        help="Smallest metric change to find, in standard deviations of its per-game value [default: the study's].",
    ),
    looks: int | None = typer.Option(None, "--looks", help="Looks (batches) per cell [default: the study's]."),
) -> None:
    """Say how many games a balance check of STUDY needs: for every number it tracks, the games of a
    baseline and of a check (each) that find a change as large as its tolerance at the error rates,
    and the number that drives each cell's total. Plays nothing. Exit 0, or 2 on bad input."""
    with library_errors(interrupted=None):
        spec, _, _ = api.check_study(study_file, figures=False)
        data = api.load_baseline(baseline) if baseline is not None else None
    overrides: dict[str, Any] = {"false_alarm": false_alarm, "miss_rate": miss_rate, "looks": looks}
    tolerance = {"win_rate": tolerance_win_rate, "metric_sd": tolerance_metric_sd}
    try:
        settings = api.check_settings(spec.check, overrides, tolerance)
    except ValueError as exc:  # pydantic's ValidationError
        err = exc.errors()[0]  # type: ignore[attr-defined]
        _fail(f"--{'-'.join(map(str, err['loc'])).replace('_', '-')}: {err['msg']}")
    with library_errors(interrupted=None):
        result = api.plan_games(study_file, data, settings)
    for line in api.plan_text(result):
        typer.echo(terminal_text(line))
