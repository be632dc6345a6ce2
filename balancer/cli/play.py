"""``balancer score`` and ``balancer play``: one table scored from text, one game told move by move."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from balancer import api
from balancer.api import errors as library

from .app import (
    _fail,
    _load,
    _players,
    app,
)
from .errors import GAMES_FAILED, library_errors, terminal_text


@app.command()
def score(
    config: Path = typer.Argument(..., help="Rule-variant YAML file whose scoring rules to use."),
    table_file: Path = typer.Argument(
        ...,
        help="Text file with a final position drawn as docs/commands/score.md "
        "shows (Citywright: a drawn table, one line per row, one "
        "character per cell; Águeda and Urban Sketchers: their own formats).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the breakdown as a JSON object."),
) -> None:
    """Score a hand-drawn final position (a table, a board) and print its category breakdown."""
    cfg, spec = _load(config)
    if not api.can_score_tables(spec):
        _fail(f"game {cfg.game!r} cannot score a table from text")
    try:  # bounded by size and by line: /dev/zero or a pipe without end is refused, never read whole
        text = api.read_table_file(table_file)
    except FileNotFoundError:
        _fail(f"{table_file}: file not found")
    except OSError as exc:
        _fail(f"{table_file}: cannot read: {exc.strerror or exc}")
    except library.InputLimitError as exc:
        _fail(str(exc))
    with library_errors(interrupted=None, about=str(table_file)):
        breakdown = api.score_table(config, text)
    if as_json:
        typer.echo(json.dumps(breakdown, indent=2))
        return
    width = max(len(str(k)) for k in breakdown)
    for key, value in breakdown.items():
        typer.echo(f"{str(key).replace('_', ' '):<{width}}  {value:>5}")


@app.command()
def play(
    config: Path = typer.Argument(..., help="Rule-variant YAML file."),
    players: int | None = typer.Option(
        None,
        "--players",
        "-p",
        help="Number of players (seats) [default: the number of --agents when a list is given, else the variant's only player count, else 2].",
    ),
    seed: int = typer.Option(1, "--seed", help="Game seed (game 0 of a run with this seed), 0 to 2^63-1."),
    agents: str = typer.Option(
        "greedy", "--agents", "-a", help="One agent for every seat, or one per seat, comma-separated."
    ),
    game_index: int = typer.Option(
        0,
        "--game-index",
        min=0,
        help="Play game I of the run with this seed (its seed SeedSequence(seed, "
        "spawn_key=(I,)) and its seats, rotated I times), as a failing game "
        "of 'balancer run' is reported.",
    ),
) -> None:
    """Play one game and print its turn-by-turn transcript."""
    cfg, _ = _load(config)
    players = _players(players, agents, cfg, 2)
    with library_errors(interrupted=None, about=str(config)):
        try:
            text = api.play_transcript(config, players, agents, seed, game_index)
        except RuntimeError as exc:  # the game itself failed (a safety stop of a search, an engine bug): exit 1
            typer.echo(f"error: this game failed: {terminal_text(str(exc))}", err=True)
            raise typer.Exit(GAMES_FAILED) from None
    typer.echo(text.rstrip("\n"))
