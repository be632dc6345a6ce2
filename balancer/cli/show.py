"""``balancer show``: a rule variant key by key (value, comment, rulebook section, assumed note), or
what it changes against another (``--diff``)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from balancer import api

from .app import app
from .errors import library_errors, terminal_text


class Format(StrEnum):
    """What ``balancer show`` prints."""

    text = "text"
    yaml = "yaml"
    json = "json"


@app.command()
def show(
    config: Path = typer.Argument(
        ..., help="Rule-variant YAML file or shipped name (citywright/v1.1; 'balancer games' lists them)."
    ),
    diff: Path | None = typer.Option(
        None,
        "--diff",
        metavar="OTHER",
        help="Show only the keys whose value differs from the variant OTHER (OTHER's value -> CONFIG's).",
    ),
    format: Format = typer.Option(
        Format.text,
        "--format",
        "-f",
        help="text (for reading), yaml (a variant file that loads as CONFIG; with --diff, a variant extending "
        "OTHER with only the changed keys) or json.",
    ),
) -> None:
    """Print every key of a rule variant after its extends: chain, with its value, the comment the
    YAML gives it, the rulebook section, the config model's description and, where the rulebook is
    silent, why the value was assumed. With --diff OTHER, only what CONFIG changes against OTHER."""
    with library_errors(interrupted=None):
        view = api.show(config, diff)
    if format is Format.yaml:
        text = view.yaml()
    elif format is Format.json:
        text = view.json()
    else:
        text = view.text()
    typer.echo(terminal_text(text), nl=False)
