"""balancer: if I change this rule, who wins more often?

Plays tabletop games between AI players, aggregates win rates and seat advantages with intervals,
and renders a self-contained HTML report. See README.md and the docs/ folder.

The library API (:mod:`balancer.api`, what the command line calls)::

    import balancer
    res = balancer.run("citywright/v1.1", players=4, agents="greedy", games=2000, seed=1)
    res.frame, res.summary
    balancer.compare("citywright/v1.0", "citywright/v1.1", players=4, games=2000)
    balancer.report(res, "reports/cw.html")

The API is imported on first use, so ``import balancer`` (and the command line) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "CompareResult",
    "ConfigError",
    "GamesFailedError",
    "ResultsExistError",
    "RunRequestError",
    "RunResult",
    "__version__",
    "compare",
    "history",
    "load_variant",
    "open_run",
    "report",
    "run",
    "show",
]
_ERRORS = {
    "ConfigError": "balancer.config",
    "GamesFailedError": "balancer.sim.runner",
    "ResultsExistError": "balancer.sim.runner",
    "RunRequestError": "balancer.sim.runner",
}
"""The errors the API raises (``except balancer.ConfigError``), from the modules that define them."""
_API = frozenset(__all__) - {"__version__"} - set(_ERRORS)

if TYPE_CHECKING:
    from balancer.api import CompareResult, RunResult, load_variant, open_run, run, show
    from balancer.config import ConfigError
    from balancer.sim.runner import GamesFailedError, ResultsExistError, RunRequestError


def __getattr__(name: str) -> Any:
    """``balancer.run`` and the rest of :data:`_API`, from :mod:`balancer.api` on first access.
    ``compare``, ``history`` and ``report`` are the modules of those names, which are callable
    (:mod:`balancer._callable`): ``balancer.report(res, path)`` calls :func:`balancer.api.report`."""
    if name in _ERRORS:
        return getattr(importlib.import_module(_ERRORS[name]), name)
    if name in ("compare", "history", "report"):
        return importlib.import_module(f"balancer.{name}")
    if name in _API:
        from balancer import api

        return getattr(api, name)
    raise AttributeError(f"module 'balancer' has no attribute {name!r}")
