"""``balancer games`` and ``balancer init``: the shipped games and variants, a starter variant."""

from __future__ import annotations

from pathlib import Path

import typer

from balancer import api

from .app import (
    _fail,
    app,
)
from .errors import library_errors, shown_path, terminal_text


@app.command()
def games() -> None:
    """List the registered games, their agents (and the extra agents, names a game accepts beyond
    those the conformance suite plays) and the variants and studies that ship with balancer, each
    with its player counts; name a shipped file as <game>/<name> (citywright/v1.1) in any command,
    or copy one to edit with 'balancer init'. A game another package installs (a plugin) is marked
    with the distribution it comes from, so the rulebooks balancer ships are told apart from it."""
    names = api.game_names()
    plugins = {name: dist for name in names if (dist := api.game_plugin(name)) is not None}
    own = [name for name in names if name not in plugins]
    _echo_fitted(
        f"shipped with balancer: {', '.join(own) or 'none'}"
        + (f"; plugins: {', '.join(f'{n} ({d})' for n, d in plugins.items())}" if plugins else "")
    )
    for name in names:
        problem = api.game_problem(name)
        try:
            spec = api.get_spec(name)
            agents = ", ".join(spec.agents) or "?"
            extra = ", ".join(spec.extra_agents)
            agents += f" ({spec.agent_note})" if spec.agent_note else ""
        except Exception as exc:  # a game being written, or a broken one installed, must not break the listing
            _echo_fitted(f"{name}: not available ({problem or exc})")
            if name in plugins:
                _echo_fitted(f"  plugin: installed by {plugins[name]}, not shipped with balancer")
            continue
        _echo_fitted(f"{name}  agents: {agents}" + (f"; also accepted: {extra}" if extra else ""))
        if name in plugins:
            _echo_fitted(f"  plugin: installed by {plugins[name]}, not shipped with balancer")
        if problem is not None:
            _echo_fitted(f"  note: {problem}")
        configs = api.shipped_configs(name)
        if not configs:
            typer.echo(f"  (no configs ship with {name})")
        for shipped, description in configs:
            _echo_fitted(f"  {shipped}.yaml  {description}")
    for agent, problem in api.agent_problems().items():
        _echo_fitted(f"generic agent {agent}: not available ({problem})")
    typer.echo("every run, variant and value of a file: balancer validate <game>/<name> (citywright/ladder)")


WIDTH = 100
"""The widest line ``balancer games`` prints (a terminal of 100 columns shows it unbroken)."""


def _echo_fitted(line: str) -> None:
    """``line`` wrapped at :data:`WIDTH` columns, the continuation indented under its text."""
    import textwrap

    indent = " " * (len(line) - len(line.lstrip()) + 4)  # a title or problem from a file: escaped (issue 52)
    typer.echo(terminal_text(textwrap.fill(line, WIDTH, subsequent_indent=indent, break_on_hyphens=False)))


@app.command()
def init(
    game: str = typer.Argument(
        ..., help="Registered game whose starter files to write (see 'balancer games'); with --from, the folder."
    ),
    directory: Path | None = typer.Argument(None, help="Folder to write variant.yaml and study.yaml into (created)."),
    from_: str | None = typer.Option(
        None,
        "--from",
        metavar="NAME",
        help="Copy this shipped study, sweep or tune (citywright/appendix) into the folder instead, its variant "
        "paths pointing at the shipped variants and at the folder's own variant.yaml where it has one.",
    ),
    force: bool = typer.Option(False, "--force", help="Replace starter files already in the folder."),
) -> None:
    """Write a starter rule variant (variant.yaml, extending the game's shipped main variant by name)
    and a study playing it against that variant (study.yaml) into DIRECTORY, for a designer to edit;
    with --from NAME (balancer init --from citywright/appendix DIRECTORY), a copy of that shipped file."""
    if from_ is not None:
        folder = Path(game) if directory is None else directory
        with library_errors(interrupted=None, cannot_write=str(folder), writing="the copy"):
            copied = api.copy_shipped(from_, folder, force=force)
        for path in copied:
            typer.echo(f"written: {shown_path(path)}")
        typer.echo(shown_path(f"next: balancer validate {copied[0]}"))
        return
    if directory is None:
        _fail("DIRECTORY: missing (balancer init GAME DIRECTORY, or balancer init --from NAME DIRECTORY)")
    with library_errors(interrupted=None, cannot_write=str(directory), writing="the starter files"):
        written = api.write_starter(game, directory, force=force)
    for path in written:
        typer.echo(f"written: {shown_path(path)}")
    typer.echo(shown_path(f"next: balancer validate {written[0]}; balancer study {written[1]}"))
