"""``balancer validate``: a variant, a study, a fragment or a sweep file checked without playing."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from balancer.config import export_schema, resolve_yaml
from balancer.core.registry import unknown_game
from balancer.files import fragment_users, is_study, is_sweep_or_tune, read_yaml_head
from balancer.games import GAMES
from balancer.sim.request import counts_text

from .app import (
    _compile_note,
    _fail,
    _load,
    app,
)
from .errors import library_errors, terminal_text


@app.command()
def validate(
    config: Path = typer.Argument(
        ...,
        help="Rule-variant YAML file to check (its extends: chain is followed), a "
        "study file (its variants too), or a fragment (the files extending "
        "it are checked). With --schema, a registered game name also works.",
    ),
    schema: bool = typer.Option(
        False,
        "--schema",
        help="Print the JSON schema of the config's game instead "
        "(of a study file: the study schema), for editor "
        "completion of YAML.",
    ),
    assumed: bool = typer.Option(
        False,
        "--assumed",
        help="After OK, list every value the config marks "
        "'assumed' (where the rulebook is silent), one per "
        "line with its key path and why.",
    ),
) -> None:
    """Check a config: print 'OK: ...' and exit 0, or print every problem (file, key path, what is
    allowed) and exit 2. With --assumed, also list the config's assumed values."""
    if schema:
        game = str(config)
        if game not in GAMES and "/" not in game and not Path(game).suffix and not Path(game).exists():
            _fail(unknown_game(game))  # a game's name, mistyped (``urban-sketchers``), not a file
        if game not in GAMES and is_study(read_yaml_head(config)):
            from balancer.study.model import Study

            typer.echo(json.dumps(Study.model_json_schema(), indent=2))  # the study file's own schema
            return
        if game not in GAMES:
            with library_errors(interrupted=None):
                named = resolve_yaml(config).data.get("game")
            if not isinstance(named, str) or named not in GAMES:
                _fail(f"{config}: game: unknown or missing game {named!r}, allowed: {', '.join(sorted(GAMES))}")
            game = named
        typer.echo(json.dumps(export_schema(game), indent=2))
        return
    head = read_yaml_head(config)
    if is_sweep_or_tune(head):
        from balancer.cli.sweep import validate_sweep_or_tune  # (imported here: commands register in order)

        validate_sweep_or_tune(config, head)
        return
    if is_study(head):
        _validate_study(config)
        return
    users = fragment_users(config, head)
    if users:
        typer.echo(
            f"{config}: a fragment (no game:), extended by {', '.join(u.name for u in users)}; validating those instead"
        )
        for user in users:
            _validate_config(user, assumed)
        return
    _validate_config(config, assumed)


def _validate_config(config: Path, assumed: bool = False) -> None:
    """Print 'OK: ...' (and the game's own description of the config; with ``assumed``, every
    ``assumed:`` note of the resolved config), or exit 2 with the error."""
    cfg, spec = _load(config)
    counts = counts_text(getattr(cfg, "player_counts", None))
    typer.echo(terminal_text(f"OK: {config} ({cfg.game} {getattr(cfg, 'variant', '')}, players {counts})"))
    if spec.describe_config is not None:  # optional: a game's data check (e.g. a deck's distribution)
        typer.echo(spec.describe_config(cfg))
    if assumed:
        from balancer.config import assumed_notes

        notes = assumed_notes(resolve_yaml(config).data)
        typer.echo(
            f"assumed ({len(notes)}; the rulebook is silent, replace them in the YAML when the real values are known):"
        )
        for note in notes:
            typer.echo(f"  - {note}")


def _validate_study(path: Path) -> None:
    """Check a study file, its variant configs, that every cell can be played and that every metric
    or label a figure shows exists (one game of each such run is played to learn them); print
    'OK: study ...' or exit 2 with every problem, one line each naming the file and key."""
    from balancer.study.runner import check_study

    with library_errors(interrupted=None):
        study, _, _ = check_study(path, jobs=1, on_probe=_compile_note)
    typer.echo(
        f"OK: study {study.study}: runs {', '.join(study.runs)}; variants {', '.join(study.variants)} "
        f"({study.game}, {path})"
    )
