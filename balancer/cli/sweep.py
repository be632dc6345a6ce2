"""``balancer sweep`` and ``balancer tune``: the command-line side of :mod:`balancer.sweep` and
:mod:`balancer.tune` (parse, check outputs, call the library, map its errors to exit codes).

Registered on :data:`balancer.cli.app` when :mod:`balancer.cli` imports this module. Exit codes as
everywhere: 0 success, 1 games raised, 2 bad input (a bad sweep or tune file, an output that cannot
be written), with nothing written for bad input.
"""

from __future__ import annotations

from pathlib import Path

import typer

from balancer import api
from balancer.api import errors as library

from .app import (
    Figures,
    Jobs,
    QuietLines,
    Scheduler,
    Tables,
    _check_out_directory,
    _check_out_file,
    _check_publish_dirs,
    _command_line,
    _compile_note,
    _echo_published,
    _fail,
    _sigterm_as_interrupt,
    app,
)
from .errors import library_errors, say, say_err, shown_path


def _log(quiet: bool):
    return None if quiet else say_err


@app.command()
def sweep(
    sweep_file: Path = typer.Argument(
        ...,
        help="Sweep YAML file: a base variant, runs (players, agents, games), one "
        "or two YAML paths with the values to try, and targets (see "
        "the shipped citywright/sweep-seat-bonus, which any command takes by that name).",
    ),
    out_html: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="HTML",
        help="HTML report to write [default: reports/<name>.html, the name of its results folder].",
    ),
    results: Path = typer.Option(
        Path("results"),
        "--results",
        metavar="DIR",
        help="Where the cells go: DIR/<name>/<run>/<point>/ (point variant files in DIR/<name>/variants/); "
        "<name> is the sweep's name (sweep:), for a file not shipped with balancer prefixed with its game and "
        "followed by a short hash of its path.",
    ),
    jobs: Jobs = -1,
    scheduler: Scheduler = None,
    quiet: QuietLines = False,
    figures: Figures = None,
    tables: Tables = None,
    force: bool = typer.Option(
        False, "--force", help="Replace the results of another sweep file in its results folder (DIR/<name>/)."
    ),
) -> None:
    """Play every point of a sweep (each a variant that sets the swept YAML paths) with the same game
    seeds, and report every tracked number against the swept value with 95% intervals, and the values
    that meet each target. Finished cells are reused; an interrupted one is continued."""
    _check_out_directory("--results", results)
    if out_html is not None:
        _check_out_file("--out", out_html, "an HTML file", (sweep_file,), force)
    with library_errors(interrupted=None):
        plan = api.load_sweep(sweep_file, jobs, on_probe=_compile_note)
    html = out_html if out_html is not None else Path("reports") / f"{plan.folder}.html"
    flag = "--out" if out_html is not None else "report file"
    _check_out_file(flag, html, "an HTML file", (sweep_file, plan.base.path, Path(results) / plan.folder), force)
    _check_publish_dirs(figures, tables)
    log = _log(quiet)
    _compile_note(plan.base.spec)
    with (
        library_errors(
            interrupted=(
                "interrupted; finished cells are kept and reused, the unfinished one is continued when the "
                "sweep is run again"
            )
        ),
        _sigterm_as_interrupt(),
    ):
        result = api.run_sweep(plan, results, jobs, scheduler=scheduler, log=log, command=_command_line(), force=force)
    (written, targets), _ = api.published(lambda: api.write_sweep_report(result, html), figures, tables, page=html)
    typer.echo(f"report: {shown_path(written)}")
    _echo_published(figures, tables)
    for line in targets:
        say(line)
    typer.echo(
        f"{result.games:,} games in {len(result.cells)} cells ({result.games_played:,} played now); "
        f"this run {result.wall_seconds:,.0f} s"
    )


@app.command()
def tune(
    tune_file: Path = typer.Argument(
        ...,
        help="Tune YAML file: a base variant, runs, a search space of YAML paths "
        "(int, float or choices), an objective built from targets, a "
        "budget (see the shipped citywright/tune-seat-bonus, which any command takes by that name).",
    ),
    out_html: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="HTML",
        help="HTML report to write [default: reports/<name>.html, the name of its results folder].",
    ),
    write: Path | None = typer.Option(
        None,
        "--write",
        metavar="VARIANT.yaml",
        help="Also write the winning variant: a YAML file that extends the base "
        "and sets only the changed keys, with a comment saying how it was "
        "found and what the confirmation measured. Refuses an existing file.",
    ),
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Continue an interrupted search: it is replayed from its "
        "finished cells (the sampler is seeded) and goes on where "
        "it stopped.",
    ),
    results: Path = typer.Option(
        Path("results"),
        "--results",
        metavar="DIR",
        help="Where the cells go: DIR/<name>/ (candidates/, <run>/<candidate>/seg-<k>/, confirm/, search.json); "
        "<name> is the tune's name (tune:), for a file not shipped with balancer prefixed with its game and "
        "followed by a short hash of its path.",
    ),
    jobs: Jobs = -1,
    scheduler: Scheduler = None,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
    figures: Figures = None,
    tables: Tables = None,
    force: bool = typer.Option(
        False, "--force", help="Replace the results of another tune file in its results folder (DIR/<name>/)."
    ),
) -> None:
    """Search a tune file's space for the values that best meet its objective (Optuna, successive
    halving over cells with common random numbers), confirm the best with fresh seeds, and report
    the trajectory, the best candidates, the response around the optimum and the confirmation."""
    _check_out_directory("--results", results)
    if out_html is not None:
        _check_out_file("--out", out_html, "an HTML file", (tune_file,), force)
    if write is not None:
        _check_out_file("--write", write, "a YAML file", (tune_file,), force=True)  # an existing file: below
        if write.suffix.lower() not in (".yaml", ".yml"):
            _fail(f"--write {write}: give a .yaml file (the tuned variant)")
        if write.exists():
            _fail(f"--write {write}: already exists; remove it or choose another file")
    with library_errors(interrupted=None):
        plan = api.load_tune(tune_file, jobs, on_probe=_compile_note)
    html = out_html if out_html is not None else Path("reports") / f"{plan.folder}.html"
    flag = "--out" if out_html is not None else "report file"
    _check_out_file(flag, html, "an HTML file", (tune_file, plan.base.path, Path(results) / plan.folder), force)
    _check_publish_dirs(figures, tables)
    with library_errors(interrupted=None):  # another tune file's folder: refused before its search state is read
        where, state = api.tune_state(results, plan, force)
    if resume and state is None:
        _fail(
            f"--resume: {where} does not exist: there is no search of {plan.tune.tune!r} "
            "to continue; run without --resume"
        )
    if not resume and state is not None and state.get("status") != "finished":
        _fail(
            f"{where}: an interrupted search of {plan.tune.tune!r}; continue it with "
            f"--resume (its finished cells are reused)"
        )
    log = _log(quiet)
    args = [a for a in _command_line().split(" ")]
    again = " ".join(args) + ("" if "--resume" in args else " --resume")
    _compile_note(plan.base.spec)
    with (
        library_errors(interrupted=f"interrupted; the finished cells are kept; continue the search with:\n  {again}"),
        _sigterm_as_interrupt(),
    ):
        result = api.run_tune(plan, results, jobs, scheduler=scheduler, log=log, command=_command_line(), force=force)
    refusal = result.refusal if write is not None else None  # --write writes only a candidate that beat the base
    written_text = (
        api.tuned_variant_text(result, write, command=_command_line())
        if write is not None and result.best and refusal is None
        else ""
    )
    report, _ = api.published(
        lambda: api.write_tune_report(result, html, written=write if written_text else None, written_text=written_text),
        figures,
        tables,
        page=html,
    )
    if write is not None and written_text:
        try:
            api.write_tuned_variant(write, written_text)
        except (library.ConfigError, OSError) as exc:
            _fail(f"--write {write}: {exc}")
    typer.echo(f"report: {shown_path(report)}")
    _echo_published(figures, tables)
    if written_text:
        typer.echo(f"tuned variant: {shown_path(write)}")
    if refusal is not None:
        typer.echo(f"--write {shown_path(write)}: nothing written: {refusal}", err=True)
    if result.best is None:
        typer.echo("no candidate was measured (budget too small for a first look?)")
        raise typer.Exit(0 if refusal is None else 1)
    say(f"best: {api.changes_text(result.best.values)}" + ("" if result.changes else " (the base's own values)"))
    conf = result.confirmation
    if conf is not None:
        for v in conf.verdicts:
            say(
                f"confirmation: {v['title']}: {v['verdict']}"
                + (f" (base: {v['base_verdict']})" if v["base_verdict"] else "")
            )
        for run, est in conf.best_estimates.items():
            seats = sorted(k for k in est if k.startswith("seat_win_rate:"))
            if seats:
                typer.echo(
                    f"confirmation {run} ({conf.games[run]:,} games): seat win rates "
                    + "  ".join(
                        f"{k.split(':')[1]}: {api.number_text(100 * est[k]['mean'], '.1f')}% "
                        f"[{api.number_text(100 * est[k]['ci_low'], '.1f')}, "
                        f"{api.number_text(100 * est[k]['ci_high'], '.1f')}]"
                        for k in seats
                    )
                )
    typer.echo(
        f"{len(result.candidates):,} candidates; games: search {result.games_search:,}, response "
        f"{result.games_response:,}, confirmation {result.games_confirm:,} ({result.games_played:,} played now); "
        f"this run {result.wall_seconds:,.0f} s"
    )
    if refusal is not None:
        raise typer.Exit(1)
