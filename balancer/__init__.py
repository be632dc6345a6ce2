"""balancer: if I change this rule, who wins more often?

Plays tabletop games between AI players, aggregates win rates and seat advantages with intervals,
and renders a self-contained HTML report. See README.md and the docs/ folder.

The library API (:mod:`balancer.api`, what the command line calls; docs/python.md)::

    import balancer
    res = balancer.run("citywright/v1.1", players=4, agents="greedy", games=2000, seed=1)
    res.frame, res.summary
    cmp = balancer.compare_variants("citywright/v1.0", "citywright/v1.1", players=4, games=2000)
    balancer.write_report(res, "reports/cw.html")

The functions are named for what they do, never after a module of the package (``balancer.report``
is the report package, ``balancer.compare`` the comparison module, ``balancer.study`` the study
package ...), so importing a submodule never hides one of them. The API is imported on first use,
so ``import balancer`` (and the command line) stays light; the errors it raises are
:mod:`balancer.errors`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from balancer.version import __version__

__all__ = [
    "CompareResult",
    "ConfigError",
    "GamesFailedError",
    "ResultsExistError",
    "RunRequestError",
    "RunResult",
    "__version__",
    "compare_variants",
    "game_names",
    "history_page",
    "load_variant",
    "open_run",
    "play_transcript",
    "read_history",
    "run",
    "run_study",
    "save_baseline",
    "score_table",
    "show",
    "write_pairs_page",
    "write_report",
    "write_starter",
]
_ERRORS = frozenset({"ConfigError", "GamesFailedError", "ResultsExistError", "RunRequestError"})
"""The errors re-exported here (``except balancer.ConfigError``), from :mod:`balancer.errors`."""
_API = frozenset(__all__) - _ERRORS - {"__version__"}
"""The names of :mod:`balancer.api` re-exported here."""

if TYPE_CHECKING:
    from balancer.api import (
        CompareResult,
        RunResult,
        compare_variants,
        game_names,
        history_page,
        load_variant,
        open_run,
        play_transcript,
        read_history,
        run,
        run_study,
        save_baseline,
        score_table,
        show,
        write_pairs_page,
        write_report,
        write_starter,
    )
    from balancer.errors import ConfigError, GamesFailedError, ResultsExistError, RunRequestError


def __getattr__(name: str) -> Any:
    """``balancer.run`` and the rest of :data:`_API` from :mod:`balancer.api`, the errors from
    :mod:`balancer.errors`, on first access; a submodule (``balancer.report``) is found as usual."""
    if name in _ERRORS:
        return getattr(importlib.import_module("balancer.errors"), name)
    if name in _API:
        return getattr(importlib.import_module("balancer.api"), name)
    if name in ("compare", "history", "report"):  # as before: the module, imported on first access
        return importlib.import_module(f"balancer.{name}")
    raise AttributeError(f"module 'balancer' has no attribute {name!r}")
