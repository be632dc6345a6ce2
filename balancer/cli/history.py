"""``balancer history``: draw a history file of checks (``balancer check --history``) as one page."""

from __future__ import annotations

from pathlib import Path

import typer

from balancer import api
from balancer.api import errors as library

from .app import Figures, Tables, _check_out_file, _check_publish_dirs, _echo_published, _fail, app
from .errors import library_errors, shown_path


@app.command()
def history(
    history_file: Path = typer.Argument(
        ..., metavar="HISTORY", help="History file written by 'balancer check --history'."
    ),
    out: Path = typer.Option(..., "--out", "-o", metavar="HTML", help="HTML page to write, e.g. history.html."),
    study: str | None = typer.Option(None, "--study", help="The study the history must hold (exit 2 otherwise)."),
    number: list[str] = typer.Option(
        [],
        "--number",
        help="Only these numbers: a name or glob (seat_win_rate:3, 'mirror-3p/*'); repeat for several.",
    ),
    since: str | None = typer.Option(
        None,
        "--since",
        help="Only events from this date (2026-12-01) or from the first event at this commit (sha prefix).",
    ),
    figures: Figures = None,
    last: int = typer.Option(
        50, "--last", min=0, metavar="N", help="Draw the last N commits (0: every commit). The drift uses them all."
    ),
    tables: Tables = None,
    force: bool = typer.Option(False, "--force", help="Replace an existing file at --out that balancer did not write."),
) -> None:
    """Draw every tracked number across commits (estimate, interval, baseline, failed checks), the
    significant moves between consecutive points and the drift since the baseline, as one self-contained
    HTML page. Exit 0, or 2 for a missing, foreign or corrupt history file or a bad filter."""
    _check_out_file("--out", out, "an HTML file", (history_file,), force)
    try:
        api.check_history_page(history_file, out)
    except library.ReportOutputError as exc:
        _fail(f"--out {exc}")
    _check_publish_dirs(figures, tables)
    said: list[str] = []  # the page's "In short" on drift, also said here (an underpowered pass is no "no drift")
    with library_errors(interrupted=None, cannot_write=f"--out {out}"):
        path, _ = api.published(  # the page's own figure files (--figures), its tables as CSV (--tables)
            lambda: api.history_page(
                history_file, out, study=study, numbers=number, since=since, figures=figures, last=last, said=said
            ),
            None,
            tables,
            figures_listed=figures,  # --figures D --tables D: D's captions.md lists the figure, then the tables
            page=out,
        )
    for line in said:
        typer.echo(line)
    typer.echo(f"history: {shown_path(path)}")
    _echo_published(figures, tables)
