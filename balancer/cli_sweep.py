"""``balancer sweep`` and ``balancer tune``: the command-line side of :mod:`balancer.sweep` and
:mod:`balancer.tune` (parse, check outputs, call the library, map its errors to exit codes).

Registered on :data:`balancer.cli.app` when :mod:`balancer.cli` imports this module. Exit codes as
everywhere: 0 success, 1 games raised, 2 bad input (a bad sweep or tune file, an output that cannot
be written), with nothing written for bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from balancer.cli import (_check_out_directory, _check_out_file, _command_line, _compile_note, _fail,
                          _report_failures, _sigterm_as_interrupt, app)
from balancer.config import ConfigError


def _log(quiet: bool):
    return None if quiet else (lambda line: typer.echo(line, err=True))


@app.command()
def sweep(
    sweep_file: Path = typer.Argument(..., help="Sweep YAML file: a base variant, runs (players, agents, games), one "
                                                "or two YAML paths with the values to try, and targets (see "
                                                "configs/citywright/sweep-seat-bonus.yaml)."),
    out_html: Optional[Path] = typer.Option(None, "--out", "-o", metavar="HTML",
                                            help="HTML report to write [default: reports/<sweep>.html]."),
    results: Path = typer.Option(Path("results"), "--results", metavar="DIR",
                                 help="Where the cells go: DIR/<sweep>/<run>/<point>/ (point variant files in "
                                      "DIR/<sweep>/variants/)."),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Worker processes; -1 uses all cores."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", envvar="BALANCER_SCHEDULER", metavar="ADDRESS",
                                            help="Play on the Dask cluster whose scheduler is at ADDRESS "
                                                 "(tcp://host:8786); --jobs is then ignored."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No per-cell lines."),
) -> None:
    """Play every point of a sweep (each a variant that sets the swept YAML paths) with the same game
    seeds, and report every tracked number against the swept value with 95% intervals, and the values
    that meet each target. Finished cells are reused; an interrupted one is continued."""
    from balancer.report.sweep import render_sweep
    from balancer.sim.runner import GamesFailedError
    from balancer.sweep import SweepError, load_sweep, run_sweep

    _check_out_directory("--results", results)
    if out_html is not None:
        _check_out_file("--out", out_html, "an HTML file")
    try:
        plan = load_sweep(sweep_file, jobs, on_probe=_compile_note)
    except (SweepError, ConfigError) as exc:
        _fail(str(exc))
    html = out_html if out_html is not None else Path("reports") / f"{plan.sweep.sweep}.html"
    _check_out_file("report file", html, "an HTML file")
    log = _log(quiet)
    try:
        _compile_note(plan.base.spec)
        with _sigterm_as_interrupt():
            result = run_sweep(plan, results, jobs=jobs, scheduler=scheduler, progress=False, log=log,
                               command=_command_line())
    except GamesFailedError as exc:
        _report_failures(exc)
        raise typer.Exit(1) from None
    except (ConfigError, ValueError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo("interrupted; finished cells are kept and reused, the unfinished one is continued when the "
                   "sweep is run again", err=True)
        raise typer.Exit(130) from None
    written = render_sweep(result, html)
    typer.echo(f"report: {written}")
    from balancer.report.sweep import target_rows
    for t in target_rows(result):
        typer.echo(f"target {t['title']}: " + ("; ".join(t["meets"]) if t["meets"] else "no point meets it"))
    typer.echo(f"{result.games:,} games in {len(result.cells)} cells ({result.games_played:,} played now); "
               f"this run {result.wall_seconds:,.0f} s")
