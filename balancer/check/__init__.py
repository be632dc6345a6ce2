"""Balance regression checks: baselines of a study's numbers (:mod:`.baseline`), the sequential check
against them and against designer targets (:mod:`.run`), and its outputs (:mod:`.output`).
The statistics live in :mod:`balancer.stats.sequential`; docs/statistics.md explains them."""

from .baseline import BaselineError, load_baseline, save_baseline
from .output import print_table, write_junit, write_markdown
from .run import CheckResult, Item, check_seed, run_check

__all__ = [
    "BaselineError",
    "CheckResult",
    "Item",
    "check_seed",
    "load_baseline",
    "print_table",
    "run_check",
    "save_baseline",
    "write_junit",
    "write_markdown",
]
