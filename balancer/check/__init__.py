"""Balance regression checks: baselines of a study's numbers (:mod:`.baseline`), the sequential check
against them and against designer targets (:mod:`.run`), and its outputs (:mod:`.output`).
The statistics live in :mod:`balancer.stats.sequential`; docs/statistics.md explains them.

The names below are loaded on first use (PEP 562), so that importing one submodule (the CLI's error
mapping needs :class:`.errors.BaselineError`) does not import the check's statistics and reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from balancer.core.lazy import lazy_exports

if TYPE_CHECKING:
    from .baseline import load_baseline, save_baseline
    from .errors import BaselineError, UnderpoweredError
    from .output import print_table, write_junit, write_markdown
    from .run import CheckResult, Item, check_seed, run_check

_WHERE = {
    "BaselineError": ".errors",
    "load_baseline": ".baseline",
    "save_baseline": ".baseline",
    "print_table": ".output",
    "write_junit": ".output",
    "write_markdown": ".output",
    "CheckResult": ".run",
    "Item": ".run",
    "check_seed": ".run",
    "run_check": ".run",
    "UnderpoweredError": ".errors",
}

__all__ = [
    "BaselineError",
    "CheckResult",
    "Item",
    "check_seed",
    "load_baseline",
    "print_table",
    "run_check",
    "save_baseline",
    "UnderpoweredError",
    "write_junit",
    "write_markdown",
]


__getattr__ = lazy_exports(__name__, _WHERE, globals())
