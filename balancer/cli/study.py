"""``balancer study``: every cell of a study file, and its page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from balancer import api

from .app import (
    Figures,
    Jobs,
    QuietCells,
    Scheduler,
    Tables,
    _check_out_directory,
    _check_out_file,
    _check_publish_dirs,
    _compile_note,
    _echo_published,
    _fail,
    _sigterm_as_interrupt,
    app,
)
from .errors import library_errors, say, say_err, shown_path


@app.command()
def study(
    study_file: Path = typer.Argument(
        ...,
        help="Study YAML file: variants, runs (players, agents, games) and "
        "figures with published values, or a shipped one by name (citywright/appendix).",
    ),
    out_html: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="HTML",
        help="HTML report to write [default: reports/<name>.html, the name of its results folder].",
    ),
    figures: Figures = None,
    tables: Tables = None,
    results: Path = typer.Option(
        Path("results"),
        "--results",
        metavar="DIR",
        help="Where each cell's results go: DIR/<name>/<run>/<variant>/; <name> is the study's name (study:), "
        "for a study not shipped with balancer prefixed with its game and followed by a short hash of its path.",
    ),
    jobs: Jobs = -1,
    force: bool = typer.Option(
        False,
        "--force",
        help="Replay every cell, even those already finished "
        "(finished cells of the same request are reused otherwise), and replace the results of "
        "another study file in its results folder.",
    ),
    quiet: QuietCells = False,
    scheduler: Scheduler = None,
) -> None:
    """Run every cell of a study (variants x runs) and render one report with the published values beside ours
    (a study with a ladder: section gets the ladder report: seats by rung, match-ups, ratings, skill depth)."""
    with library_errors(interrupted=None):  # every problem of the file at once, before any output is checked
        checked = api.check_study(study_file, jobs, on_probe=_compile_note)
    spec = checked[0]
    folder = api.study_folder(study_file, spec, results)
    html = out_html if out_html is not None else Path("reports") / f"{folder}.html"
    # the study, its variant files and its cells' files (results/<folder>/...): never its page
    inputs = (study_file, *checked[1].values(), Path(results) / folder)
    _check_out_file("--out" if out_html is not None else "report file", html, "an HTML file", inputs, force)
    _check_publish_dirs(figures, tables)
    _check_out_directory("--results", results)
    log = None if quiet else say_err
    _compile_note(api.get_spec(spec.game))
    with (
        library_errors(
            interrupted=(
                "interrupted; finished cells are kept and will be reused, the unfinished one is continued "
                "when the study is run again"
            )
        ),
        _sigterm_as_interrupt(),
    ):
        result = api.run_study(
            study_file,
            results,
            jobs,
            force=force,
            progress=not quiet,
            log=log,
            scheduler=scheduler or None,
            folder=folder,
            checked=checked,
        )
    try:
        (written, lines), _ = api.published(lambda: api.write_study_report(result, html), figures, tables, page=html)
    except (KeyError, ValueError, OSError) as exc:  # checked before playing; a last guard, never a traceback
        _fail(
            f"{study_file}: the report could not be made ({exc}); the finished cells are kept in "
            f"{results} and reused when the study is run again"
        )
    for line in lines:  # one per ladder of a study with a ladder: section
        say(line)
    typer.echo(f"report: {shown_path(written)}")
    _echo_published(figures, tables)
    typer.echo(
        f"{result.games:,} games in {len(result.cells)} cells; playing them took {result.took_text()}, this run "
        f"{result.wall_seconds:,.0f} s"
    )
    echo_completion(result)


def echo_completion(result: Any) -> None:
    """For every cell of a finished study (or ladder) whose games did not all end by the rules, say so
    with the commands that replay them (:func:`balancer.api.study_completion_lines`)."""
    for line in api.study_completion_lines(result):
        say(line)
