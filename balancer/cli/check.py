"""``balancer baseline save`` and ``balancer check``: the balance regression check of CI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from balancer import api

from .app import (
    Jobs,
    OneLineGroup,
    QuietCells,
    QuietLines,
    _check_out_directory,
    _check_out_file,
    _fail,
    _sigterm_as_interrupt,
    app,
)
from .errors import library_errors, say_err, shown_path

baseline_app = typer.Typer(
    cls=OneLineGroup,
    help="Baselines of a study's numbers, for 'balancer check'.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(baseline_app, name="baseline")


@baseline_app.command("save")
def baseline_save(
    ctx: typer.Context,
    study_file: Path = typer.Argument(..., help="Study YAML file, or a shipped one by name (citywright/ci)."),
    out: Path = typer.Option(
        ..., "--out", "-o", metavar="JSON", help="Baseline file to write, e.g. baselines/NAME.json."
    ),
    results: Path = typer.Option(
        Path("results"),
        "--results",
        metavar="DIR",
        help="Where the study's cells are played: DIR/<name>/<run>/<variant>/, as 'balancer study' names it.",
    ),
    jobs: Jobs = -1,
    force: bool = typer.Option(False, "--force", help="Overwrite an existing baseline file."),
    replay: bool = typer.Option(False, "--replay", help="Replay every cell (finished cells are reused otherwise)."),
    quiet: QuietCells = False,
    history: Path | None = typer.Option(
        None, "--history", metavar="DUCKDB", help="Also record the baseline as an event of this history file."
    ),
) -> None:
    """Run a study and store each cell's tracked numbers (seat and agent win rates, metric means, with
    games, successes or mean and variance), the seed, config and engine hashes and the version."""
    with library_errors(interrupted=None):
        spec, _, _ = api.check_study(study_file, figures=False)  # every problem of the file at once
    _check_out_file("--out", out, "a JSON file", (study_file,), force=True)  # an existing baseline: below
    if out.exists() and not force:
        _fail(f"--out {out}: {_existing(out)}")
    _check_out_directory("--results", results)
    reservation = _check_history(ctx, history, spec, study_file, {"--out": out}) if history is not None else None
    log = None if quiet else say_err
    values: dict[Any, Any] = {}
    with (
        library_errors(interrupted="interrupted; no baseline was written", cannot_write=f"--out {out}"),
        _sigterm_as_interrupt(),
    ):
        data = api.save_baseline(
            study_file,
            out,
            results,
            jobs,
            replay=replay,
            progress=not quiet,
            log=log,
            values=values if history is not None else None,
        )
    if reservation is not None:
        rows, kept = api.baseline_history_rows(data, study_file, spec.check, values)
        _append_history(reservation, rows, kept)
    numbers, tracked = api.count_tracked(data, spec.check.metrics)
    note = (
        ""
        if tracked == numbers
        else (
            f"; check tracks {tracked} of them (the win rates and the metrics "
            f"in check.metrics), the rest are stored for a later choice"
        )
    )
    typer.echo(
        f"baseline: {shown_path(out)} ({len(data['cells'])} cells, {numbers} numbers, seed {data['seed']}{note})"
    )
    with library_errors(interrupted=None):  # saving is fine; the check that follows would stop (issue 50)
        warning = api.baseline_power_warning(study_file, data, spec.check)
    if warning is not None:
        say_err(warning)


@app.command()
def check(
    ctx: typer.Context,
    study_file: Path = typer.Argument(..., help="Study YAML file whose baseline to check against."),
    baseline: Path = typer.Option(
        ..., "--baseline", "-b", metavar="JSON", help="Baseline written by 'balancer baseline save'."
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="Seed to play [default: derived from the baseline's seed, never equal to it]."
    ),
    max_games: int | None = typer.Option(
        None,
        "--max-games",
        min=1,
        help="Game cap per cell [default: the study's check.max_games, else the baseline's games].",
    ),
    false_alarm: float | None = typer.Option(
        None,
        "--false-alarm",
        help="Chance that an unchanged study fails, over all numbers [default: the study's check: setting, else 0.01].",
    ),
    miss_rate: float | None = typer.Option(
        None,
        "--miss-rate",
        help="Chance of passing a change as large as the tolerance [default: the study's check: setting, else 0.1].",
    ),
    tolerance_win_rate: float | None = typer.Option(
        None,
        "--tolerance-win-rate",
        help="Smallest win-rate change to find, as a fraction [default: the study's, else 0.02 = 2 points].",
    ),
    tolerance_metric_sd: float | None = typer.Option(
        None,
        "--tolerance-metric-sd",
        help="Smallest metric change to find, in baseline standard "
        "deviations of its per-game value [default: the study's, else 0.1].",
    ),
    looks: int | None = typer.Option(None, "--looks", help="Looks (batches) per cell [default: the study's, else 4]."),
    junit: Path | None = typer.Option(
        None, "--junit", metavar="XML", help="Also write JUnit XML, one test case per number."
    ),
    markdown: Path | None = typer.Option(None, "--markdown", metavar="MD", help="Also write a Markdown summary table."),
    history: Path | None = typer.Option(
        None,
        "--history",
        metavar="DUCKDB",
        help="Append every number's result, with the git commit, to this history file (created if missing).",
    ),
    allow_underpowered: bool = typer.Option(
        False,
        "--allow-underpowered",
        help="Play even when some cell cannot find the tolerance at the miss rate (PASS then says 'underpowered'); "
        "refused otherwise.",
    ),
    jobs: Jobs = -1,
    quiet: QuietLines = False,
    force: bool = typer.Option(
        False, "--force", help="Replace an existing file at --junit or --markdown that balancer did not write."
    ),
) -> None:
    """Replay a study with a new seed and test every tracked number against its baseline and the study's
    expect: targets (group-sequential test; see docs/statistics.md). Exit 0 pass, 1 fail, 2 bad input."""
    with library_errors(interrupted=None):
        spec, variants, _ = api.check_study(study_file, figures=False)  # every problem of the file at once
        data = api.load_baseline(baseline)
    for flag, path in (("--junit", junit), ("--markdown", markdown)):
        if path is not None:
            _check_out_file(flag, path, "a file", (study_file, baseline, *variants.values()), force)
    if junit is not None and markdown is not None and junit.resolve() == markdown.resolve():
        _fail(f"--junit and --markdown: both name {junit}; give two files")
    others = {"--junit": junit, "--markdown": markdown, "--baseline": baseline}
    reservation = _check_history(ctx, history, spec, study_file, others) if history is not None else None
    overrides: dict[str, Any] = {
        "max_games": max_games,
        "false_alarm": false_alarm,
        "miss_rate": miss_rate,
        "looks": looks,
    }
    tolerance = {"win_rate": tolerance_win_rate, "metric_sd": tolerance_metric_sd}
    try:
        settings = api.check_settings(spec.check, overrides, tolerance)
    except ValueError as exc:  # pydantic's ValidationError
        err = exc.errors()[0]  # type: ignore[attr-defined]
        _fail(f"--{'-'.join(map(str, err['loc'])).replace('_', '-')}: {err['msg']}")
    log = None if quiet else say_err
    with library_errors(interrupted="interrupted; nothing was written"), _sigterm_as_interrupt():
        result = api.run_check(
            study_file,
            data,
            baseline,
            settings=settings,
            seed=seed,
            jobs=jobs,
            log=log,
            allow_underpowered=allow_underpowered,
        )
    api.print_check_table(result)
    for writer, path in ((api.write_check_junit, junit), (api.write_check_markdown, markdown)):
        if path is not None:
            with library_errors(interrupted=None, cannot_write=str(path)):
                typer.echo(f"written: {shown_path(writer(result, path))}")
    if reservation is not None:
        rows, values = api.check_history_rows(result, study_file)
        _append_history(reservation, rows, values)
    raise typer.Exit(0 if result.passed else 1)


def _check_history(ctx: typer.Context, path: Path, spec: Any, study_file: Path, others: dict[str, Path | None]) -> Any:
    """Exit 2 (one line naming the file) unless ``path`` can take an event of study ``spec`` and is
    none of the ``others`` files the command writes or reads (``--junit h.duckdb`` would replace the
    history before the append refused it); else the history reserved (its writer's lock held until the
    command ends), so that a bad or busy history is refused before any game is played."""
    own = {path.resolve(), path.with_name(path.name + ".lock").resolve(), path.with_name(path.name + ".wal").resolve()}
    for flag, other in others.items():
        if other is not None and other.resolve() in own:
            _fail(f"--history {path}: is also {flag} {other}; give the history a file of its own")
    with library_errors(interrupted=None):
        reservation = api.reserve_history(path, spec.study, spec.game, study_file)
    ctx.call_on_close(reservation.close)
    return reservation


def _append_history(reservation: Any, rows: list[dict[str, Any]], values: dict[Any, Any]) -> None:
    """Append one event to the reserved history and say so on stderr; exit 2 naming the file when it
    cannot be written (the file is left as it was)."""
    path = reservation.path
    with library_errors(interrupted="interrupted; nothing was added to the history", cannot_write=f"--history {path}"):
        event = reservation.append(rows, values)
    typer.echo(f"history: {shown_path(path)} (event {event}, {len(rows)} numbers)", err=True)


def _existing(out: Path) -> str:
    """Why ``baseline save`` refuses the existing file ``out`` without ``--force``: a baseline it would
    replace, or another file (its refusal must not call a user's file a baseline)."""
    try:
        api.load_baseline(out)
    except (ValueError, OSError):  # BaselineError (a ValueError): not JSON, not a baseline, unreadable
        return "already exists and is not a balancer baseline; choose another --out (--force would replace it)"
    return "already holds a baseline; use --force to replace it"
