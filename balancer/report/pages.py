"""What every HTML page of ``balancer/report/`` (and the ladder page) shares: the jinja2 environment
over ``templates/`` and the scaled number text of their tables."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
"""The page templates (``*.html.j2``), shipped as package data."""


def environment(**filters: Callable[..., Any]) -> Environment:
    """The jinja2 environment of a page: the templates of :data:`TEMPLATE_DIR`, autoescape on (every
    name from data is escaped; only SVG marked ``Markup`` is not), strict undefined, block
    whitespace trimmed, and the page's own ``filters`` (name -> function)."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(filters)
    return env


def fmt_scaled(value: float | None, scale: float = 1.0, digits: int = 1) -> str:
    """``value * scale`` with ``digits`` decimals and thousands separators: ``0.2634, 100 -> "26.3"``;
    None, NaN or an infinity -> ``"–"``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value * scale:,.{digits}f}"
