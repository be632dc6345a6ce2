"""``balancer compare``: two variants on the same seeds."""

from __future__ import annotations

from pathlib import Path

import typer

from balancer import api

from .app import (
    Figures,
    Jobs,
    TableAgents,
    TablePlayers,
    Tables,
    _check_out_directory,
    _check_out_file,
    _check_publish_dirs,
    _command_line,
    _echo_published,
    _fail,
    _load,
    _players,
    _sigterm_as_interrupt,
    app,
)
from .errors import library_errors, say, shown_path


@app.command()
def compare(
    config_a: Path = typer.Argument(..., help="Rule-variant YAML file to compare from (A)."),
    config_b: Path = typer.Argument(..., help="Rule-variant YAML file to compare to (B); same game as A."),
    others: list[Path] | None = typer.Argument(
        None,
        metavar="MORE",
        help="More variants of the same game: each is played on the same seeds and compared with A, and "
        "the page ranks them all by the fairness headline (one Holm family across the page).",
        show_default=False,
    ),
    players: TablePlayers = None,
    n_games: int = typer.Option(
        1000, "--games", "-n", help="Games per variant (at least 1); both variants play the same game seeds."
    ),
    agents: TableAgents = "greedy",
    seed: int = typer.Option(
        1,
        "--seed",
        help="Run seed shared by both variants (common random numbers): "
        "game i uses SeedSequence(seed, spawn_key=(i,)) in A and B.",
    ),
    jobs: Jobs = -1,
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        metavar="DIR",
        help="Output directory for both runs and comparison.json "
        "[default: results/compare-<game>-<a>-vs-<b>-<players>p, then the agents unless greedy in every seat; a variant not shipped with balancer "
        "carries a short hash of its path].",
    ),
    report_html: Path | None = typer.Option(
        None,
        "--report",
        metavar="HTML",
        help="HTML comparison page to write [default: reports/compare-<game>-<a>-vs-<b>-<players>p.html].",
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Play both variants again, overwriting results in the "
        "output directory (matching runs are reused otherwise).",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
    figures: Figures = None,
    tables: Tables = None,
) -> None:
    """Play two rule variants (or a base and several) with the same seeds and report paired differences
    (from -> to, 95% CI), the fairness headline first."""
    cfg_a, _ = _load(config_a)  # exit 2 with file and key path on a bad config
    _load(config_b)
    others = list(others or [])
    for other in others:
        _load(other)
    players = _players(players, agents, cfg_a, 4)
    name = api.default_compare_name(config_a, config_b, players, agents, others)
    out_dir = out if out is not None else Path("results") / name
    html = report_html if report_html is not None else Path("reports") / f"{name}.html"
    if out is not None and out.suffix.lower() in (".html", ".htm"):
        _fail(f"--out {out}: --out is the directory for both variants' results; give the HTML page with --report {out}")
    inputs = (config_a, config_b, *others, out_dir)  # every variant file and both runs' files: never the page
    _check_out_file("--report" if report_html is not None else "report file", html, "an HTML file", inputs, force)
    _check_out_directory("--out" if out is not None else "output directory", out_dir)
    _check_publish_dirs(figures, tables)
    with library_errors(interrupted=None):  # the page of another comparison: refused before playing
        api.check_page(html, out_dir, force, ("path", "--report"))
    with (
        library_errors(
            interrupted="interrupted; finished runs are kept, and the same command continues the unfinished one"
        ),
        _sigterm_as_interrupt(),
    ):
        compared = api.compare_variants(
            config_a, config_b, players, agents, n_games, seed, jobs, out_dir, force=force, progress=not quiet,
            command=_command_line(), others=others,
        )  # fmt: skip
    with library_errors(interrupted=None, cannot_write=str(html), writing="the report"):
        written, _ = api.published(
            lambda: api.write_report(compared, html, force=force), figures, tables, page=html
        )  # a link planted meanwhile: one line, not a traceback
    for headline in api.comparison_headlines(compared.comparison):
        typer.echo(headline)
    typer.echo(f"results: {shown_path(out_dir / 'comparison.json')}")
    typer.echo(f"report: {shown_path(written)}")
    _echo_published(figures, tables)
    for line in api.comparison_completion_lines(compared):
        say(line)
    if not quiet and "comparisons" not in compared.comparison:  # several variants: the page has their rows
        for line in difference_lines(compared.comparison):
            typer.echo(line)


MARKS = {
    "*": "* a change the games show (significant after Holm over the page's rows)",
    "(rule)": "(rule) a change the rule makes by itself (a seat bonus's own points), kept out of the count",
}
"""What each mark after a win-rate line means, printed under the lines that carry it."""


def difference_lines(result: dict) -> list[str]:
    """The terminal's win-rate lines of a comparison (agents, then seats: ``seat 1: 52.0% -> 49.0% (-3.0 pp) *``),
    then what each mark used means (:data:`MARKS`)."""
    lines, used = [], []
    for row in result["agent_win_rate"] + result["seat_win_rate"]:
        if row["difference"] is None:
            continue
        mark = "*" if row["significant"] else "(rule)" if row.get("mechanical") else ""
        if mark and mark not in used:
            used.append(mark)
        tail = f" {mark}" if mark else ""
        lines.append(f"{row['name']}: {row['from']:.1%} -> {row['to']:.1%} ({100 * row['difference']:+.1f} pp){tail}")
    return lines + [MARKS[m] for m in MARKS if m in used]
