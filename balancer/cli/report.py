"""``balancer report`` and ``balancer pairs``: the HTML pages of a run directory."""

from __future__ import annotations

from pathlib import Path

import typer

from balancer import api
from balancer.api import errors as library

from .app import (
    Figures,
    Tables,
    _check_out_directory,
    _check_out_file,
    _check_publish_dirs,
    _echo_published,
    _fail,
    app,
)
from .errors import shown_path


def _not_a_results_dir(path: Path) -> str:
    """Why ``path`` is no results directory: missing, or a file (a variant's YAML given where its run's folder goes)."""
    if path.is_file():
        hint = (
            " (a variant file: `balancer run` it first, then report its --out folder)"
            if path.suffix in (".yaml", ".yml")
            else ""
        )
        return f"{path}: a file, not a results directory{hint}"
    return f"{path}: no such results directory"


@app.command()
def report(
    results_dir: Path = typer.Argument(..., help="Directory written by 'balancer run' (results.parquet, run.json)."),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="HTML file to write [default: reports/<game>-<dirname>-<hash>.html, the hash of the folder's path].",
    ),
    force: bool = typer.Option(False, "--force", help="Replace the page of another results folder at the HTML file."),
    figures: Figures = None,
    tables: Tables = None,
) -> None:
    """Render the self-contained HTML report of a results directory (the summary is recomputed
    from results.parquet; a summary.json that disagrees with it is refused)."""
    if not results_dir.is_dir():
        _fail(_not_a_results_dir(results_dir))
    rundir = api.run_dir(results_dir)
    if rundir.manifest_file.is_file() and not rundir.results.is_file():
        _fail(
            f"{results_dir}: an unfinished run ({rundir.manifest_file.name}, no {rundir.results.name} yet); finish "
            f"it by repeating its 'balancer run' command with --resume, then report it"
        )
    for path in (rundir.results, rundir.run_file):
        if not path.is_file():
            _fail(f"{results_dir}: missing {path.name}; is this a directory written by 'balancer run'?")
    target = out if out is not None else api.default_report_page(results_dir)
    where = "--out " if out is not None else "report file "
    _check_out_file(where.strip(), target, "an HTML file", tuple(rundir.own_files()), force)
    _check_publish_dirs(figures, tables)
    for option, folder in (("--figures", figures), ("--tables", tables)):
        if folder is not None and Path(folder).resolve() == Path(results_dir).resolve():
            _fail(f"{option} {folder}: is the run's own results folder; choose a folder of its own for the files")
    try:
        written, _ = api.published(
            lambda: api.write_report(api.RunResult(results_dir), target, force=force), figures, tables, page=target
        )
    except library.ResultsExistError as exc:  # the page of another results folder
        _fail(f"{where}{exc.cli_message()}")
    except library.ReportOutputError as exc:
        _fail(f"{where}{exc}")
    except library.UnsafeOutputError as exc:  # a link where the report or summary.json belongs: the message names it
        _fail(str(exc))
    except (FileNotFoundError, ValueError) as exc:  # ResultsFileError names the file
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{results_dir}: cannot read ({exc.strerror or exc})")
    typer.echo(f"report: {shown_path(written)}")
    _echo_published(figures, tables)


@app.command()
def pairs(
    results_dir: Path = typer.Argument(..., help="Directory written by 'balancer run' whose games carry a pair label."),
    label: str = typer.Option(
        ..., "--label", "-l", help="Label naming a pair per game, e.g. 'shops' (column label_shops)."
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="HTML file to write [default: reports/<dirname>-<label>.html]."
    ),
    figures_dir: Path | None = typer.Option(
        None, "--figures", help="Also write the heatmaps as SVG, PNG and PDF files into DIR."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing file at --out that balancer did not write."),
) -> None:
    """Heatmaps of a run by a pair label: the first seat's win rate, the seat spread and the winning
    margin of every pair (e.g. Águeda's shop cards), and the most one-sided pairs."""
    if not results_dir.is_dir():
        _fail(_not_a_results_dir(results_dir))
    target = out if out is not None else Path("reports") / f"{results_dir.resolve().name}-{label}.html"
    _check_out_file(
        "--out" if out is not None else "report file",
        target,
        "an HTML file",
        tuple(api.run_dir(results_dir).own_files()),
        force,
    )
    if figures_dir is not None:
        _check_out_directory("--figures", figures_dir)
    try:
        written = api.write_pairs_page(results_dir, label, target, figures_dir)
    except KeyError as exc:
        _fail(f"{results_dir}: --label {label}: {exc.args[0]}")
    except (FileNotFoundError, ValueError) as exc:
        _fail(f"{results_dir}: {exc}")
    typer.echo(f"pairs: {shown_path(written)}")
