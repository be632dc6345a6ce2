"""Studies: several variants x player counts x tables in one file, run cell by cell, one report.

A study file names variants (config files), runs (players, agents, games) and figures (what to show,
with published values to set beside ours). See ``configs/citywright/appendix.yaml``.

The names below are loaded on first use (PEP 562): the study file's model (:mod:`.model`, which the
CLI's error mapping needs) imports neither the runner nor the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from balancer.core.lazy import lazy_exports

if TYPE_CHECKING:
    from .changes import study_changes
    from .model import Figure, Run, Study, StudyError, load_study
    from .runner import StudyResult, cell_dir, run_study

_WHERE = {
    "study_changes": ".changes",
    "Figure": ".model",
    "Run": ".model",
    "Study": ".model",
    "StudyError": ".model",
    "load_study": ".model",
    "StudyResult": ".runner",
    "cell_dir": ".runner",
    "run_study": ".runner",
}

__all__ = [
    "Figure",
    "Run",
    "Study",
    "StudyError",
    "StudyResult",
    "cell_dir",
    "load_study",
    "run_study",
    "study_changes",
]


__getattr__ = lazy_exports(__name__, _WHERE, globals())
