"""The ``balancer`` command line: a thin layer over the library (:mod:`balancer.api`,
balancer.config, balancer.sim, balancer.report), one module per command or command group (Typer's
layout). :data:`app` is the entry point (``balancer = "balancer.cli:app"``, ``python -m balancer``).

Exit codes (docs/architecture.md): 0 success, 1 a check failed, 2 bad input (config, arguments, files). Every
bad input prints one clear message on stderr naming the file or key, and writes nothing.
"""

from __future__ import annotations

import importlib

COMMANDS: tuple[str, ...] = (
    "games",
    "validate",
    "show",
    "run",
    "report",
    "play",
    "compare",
    "study",
    "check",
    "plan",
    "history",
    "ladder",
    "sweep",
)
"""The command modules; importing one registers its commands on ``app``, in this order (the order
of ``balancer --help``)."""
for _module in COMMANDS:
    importlib.import_module(f"{__name__}.{_module}")
from .app import app  # noqa: E402

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover - console entry alternative
    """Run the command line."""
    app()
