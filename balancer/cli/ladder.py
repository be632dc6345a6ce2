"""``balancer ladder``: the command-line form of a skill ladder (:mod:`balancer.ladder`).

The command checks its arguments, writes the ladder as a study file
(``<results>/<name>/ladder.yaml``, a ``ladder:`` section over the given variant) and plays it as
``balancer study`` would, so both forms share the cells, the cache of finished cells and the report;
``balancer study <results>/<name>/ladder.yaml`` replays (or ``check``s) exactly the same ladder.

Registered on :data:`balancer.cli.app` when :mod:`balancer.cli` imports this module. Exit codes as
everywhere: 0 success, 1 games raised, 2 bad input (one line, nothing written).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer
import yaml

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
    _load,
    _sigterm_as_interrupt,
    app,
)
from .errors import library_errors, say, say_err, shown_path
from .study import echo_completion

LADDER_FLAGS = {"rungs": "--agents", "players": "--players", "games": "--games", "bootstrap": "--bootstrap"}
STUDY_FILE = "ladder.yaml"
NAME_PATTERN = api.LADDER_NAME_PATTERN


def _players_list(text: str | None, cfg: Any) -> list[int]:
    """``--players``: one count or a comma list; default the variant's only player count."""
    if text is None:
        counts = getattr(cfg, "player_counts", None) or []
        if len(counts) == 1:
            return [counts[0]]
        _fail(
            f"--players: give the player count (this variant supports {', '.join(map(str, counts)) or 'any'}), "
            "or a comma list such as 2,4"
        )
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part.isdigit():
            _fail(f"--players: {text!r} is not a player count or a comma list of them (e.g. 4, or 2,4)")
        out.append(int(part))
    return out


def _ladder_model(rungs: list[str], players: list[int], games: int, matchups: bool, bootstrap: int) -> Any:
    """The validated ladder section (:func:`balancer.api.ladder_settings`), or exit 2 naming the flag at fault."""
    try:
        return api.ladder_settings(rungs, players, games, matchups, bootstrap)
    except ValueError as exc:
        key, _, msg = str(exc).partition(": ")
        _fail(f"{LADDER_FLAGS.get(key.split('.')[0], '--' + key)}: {msg}")


def _refuse_other_ladder(study_file: Path, variants: dict[str, str], force: bool, flag: str) -> None:
    """Exit 2 when ``study_file`` (``<results>/<name>/ladder.yaml``) is the ladder of another variant
    than ``variants`` (its ``variants:``), unless ``force``: a ladder run again with other rungs or
    games reuses its cells, one of another variant never replaces them silently."""
    try:
        earlier = yaml.safe_load(study_file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return  # no ladder there yet (or not one balancer wrote: the study check says so)
    found = earlier.get("variants") if isinstance(earlier, dict) else None
    if force or not isinstance(found, dict) or found == variants:
        return
    was = ", ".join(str(v) for v in found.values())
    _fail(
        f"{study_file.parent}: holds the ladder of {was}, not of {', '.join(variants.values())}; "
        f"use --force to replace it, or choose another {flag}"
    )


@app.command()
def ladder(
    config: Path = typer.Argument(..., help="Rule-variant YAML file."),
    agents: str = typer.Option(
        ...,
        "--agents",
        "-a",
        help="The rungs: agents in order of rising strength, comma "
        "separated, at least two, each once (random,greedy,"
        "mcts@200,mcts@1000).",
    ),
    players: str | None = typer.Option(
        None,
        "--players",
        "-p",
        help="Player count, or a comma list (2,4) for a ladder at each [default: the variant's only player count].",
    ),
    n_games: int = typer.Option(
        2000, "--games", "-n", help="Games per cell, a multiple of every player count (seats rotate evenly)."
    ),
    out_html: Path | None = typer.Option(
        None, "--out", "-o", metavar="HTML", help="HTML report to write [default: reports/<name>.html]."
    ),
    seed: int = typer.Option(1, "--seed", help="Seed of every cell, 0 to 2^63-1."),
    name: str | None = typer.Option(
        None,
        "--name",
        help="The ladder's name: its cells and study file go to RESULTS/<name>/ [default: ladder-<game>-<variant>, "
        "and a short hash of its path for a variant not shipped with balancer].",
    ),
    results: Path = typer.Option(
        Path("results"), "--results", metavar="DIR", help="Where the cells go: DIR/<name>/<run>/<variant>/."
    ),
    matchups: bool = typer.Option(
        True,
        "--matchups/--no-matchups",
        help="Also play every rung against every other (the matrix, ratings and skill depth need them).",
    ),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap replicates of the ratings' intervals."),
    figures: Figures = None,
    tables: Tables = None,
    jobs: Jobs = -1,
    scheduler: Scheduler = None,
    force: bool = typer.Option(
        False,
        "--force",
        help="Replay every cell (finished cells of the same request are reused otherwise), and replace the "
        "ladder of another variant in RESULTS/<name>/.",
    ),
    quiet: QuietCells = False,
) -> None:
    """Play a skill ladder: each agent (rung, weakest first) in mirror tables and against every other,
    and report seat win rates by rung (with the seat x rung test), the match-up matrix, ratings on
    one scale and the skill depth, with 95% intervals. Exit 0 done, 1 games raised, 2 bad input."""
    given_name = name is not None
    cfg, spec = _load(config)
    rungs = [a.strip() for a in agents.split(",")]
    if any(not a for a in rungs):
        _fail(f"--agents: an empty agent name in {agents!r}; give the rungs as a comma list, e.g. random,greedy")
    counts = _players_list(players, cfg)
    model = _ladder_model(rungs, counts, n_games, matchups, bootstrap)
    for rung in rungs:
        problem = spec.check_agent(rung, cfg)
        if problem:
            _fail(f"--agents: {problem}")
    with library_errors(interrupted=None):
        api.check_ladder_cells(config, cfg, spec, model, n_games, seed, jobs)
    label = api.ladder_label(config, cfg)
    if name is None:
        name = api.default_ladder_name(config, spec.name, label)
    if not re.fullmatch(NAME_PATTERN, name):
        _fail(f"--name: {name[:40]!r}: letters, digits, '.', '_' and '-' only, at most 64 characters (a folder name)")
    html = out_html if out_html is not None else Path("reports") / f"{name}.html"
    inputs = (config, results / name)  # the variant file and the ladder's cells: never its page
    _check_out_file("--out" if out_html is not None else "report file", html, "an HTML file", inputs, force)
    _check_publish_dirs(figures, tables)
    _check_out_directory("--results", results)
    study_file = results / name / STUDY_FILE
    # a file on disk by its absolute path; a built-in name (citywright/v1.1) as the name, which
    # the study file resolves as every command does
    variants = {label: str(config.resolve()) if config.exists() or not api.is_shipped(config) else str(config)}
    data = {
        "study": name,
        "title": f"{spec.display_name} {getattr(cfg, 'variant', '')}: skill ladder {', '.join(rungs)}",
        "game": spec.name,
        "seed": seed,
        "variants": variants,
        "ladder": {"rungs": rungs, "players": counts, "games": n_games, "matchups": matchups, "bootstrap": bootstrap},
    }
    _refuse_other_ladder(study_file, variants, force, "--name" if given_name else "--results")
    log = None if quiet else say_err
    with library_errors(
        interrupted=(
            "interrupted; finished cells are kept and reused, the unfinished one is continued when the "
            "ladder is run again"
        ),
        cannot_write=f"--results {results}",
    ):
        api.write_ladder_study(results, study_file, data)  # <results>/<name>/ladder.yaml: the ladder's own
        _compile_note(spec)
        with _sigterm_as_interrupt():
            result = api.run_study(
                study_file,
                results,
                jobs,
                force=force,
                progress=not quiet,
                log=log,
                scheduler=scheduler or None,
                folder=name,
            )
    (written, lines), _ = api.published(lambda: api.write_ladder_report(result, html), figures, tables, page=html)
    for line in lines:
        say(line)
    typer.echo(f"report: {shown_path(written)}")
    _echo_published(figures, tables)
    shown = shown_path(study_file)
    typer.echo(f"study file: {shown} (replay or check it with 'balancer study {shown}')")
    typer.echo(
        f"{result.games:,} games in {len(result.cells)} cells; playing them took "
        f"{result.took_text()}, this run {result.wall_seconds:,.0f} s"
    )
    echo_completion(result)
