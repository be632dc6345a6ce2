"""``balancer validate``: a variant, a study, a fragment or a sweep file checked without playing."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from balancer import api

from .app import (
    _compile_note,
    _load,
    app,
)
from .errors import library_errors, shown_path, terminal_text


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
        with library_errors(interrupted=None):
            found = api.variant_schema(config)
        typer.echo(json.dumps(found, indent=2))
        return
    kind, head = api.file_kind(config)
    if kind == "sweep":
        validate_sweep_or_tune(config, head)
        return
    if kind == "study":
        _validate_study(config)
        return
    users = api.fragment_users(config, head)
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
    counts = api.player_counts_text(cfg)
    typer.echo(terminal_text(f"OK: {config} ({cfg.game} {getattr(cfg, 'variant', '')}, players {counts})"))
    if spec.describe_config is not None:  # optional: a game's data check (e.g. a deck's distribution)
        typer.echo(terminal_text(spec.describe_config(cfg)))
    if assumed:
        notes = api.assumed_notes(config)
        typer.echo(
            f"assumed ({len(notes)}; the rulebook is silent, replace them in the YAML when the real values are known):"
        )
        for note in notes:
            typer.echo(shown_path(f"  - {note}"))


def _validate_study(path: Path) -> None:
    """Check a study file, its variant configs, that every cell can be played and that every metric
    or label a figure shows exists (one game of each such run is played to learn them); print
    'OK: study ...' or exit 2 with every problem, one line each naming the file and key."""
    with library_errors(interrupted=None):
        study, _, _ = api.check_study(path, 1, on_probe=_compile_note)
    typer.echo(
        f"OK: study {study.study}: runs {', '.join(study.runs)}; variants {', '.join(study.variants)} "
        f"({study.game}, {path})"
    )


def validate_sweep_or_tune(path: Path, head: dict) -> None:
    """``balancer validate`` of a sweep or tune file: 'OK: ...' or exit 2 with every problem (a target
    naming a metric or label plays one game of each run to learn them)."""
    with library_errors(interrupted=None):
        plan = (
            api.load_sweep(path, -1, on_probe=_compile_note)
            if "sweep" in head
            else api.load_tune(path, -1, on_probe=_compile_note)
        )
    typer.echo(
        shown_path(f"OK: {api.describe_sweep_or_tune(path, head)} ({plan.base.spec.name}, base {plan.base.path})")
    )
