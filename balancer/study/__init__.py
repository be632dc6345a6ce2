"""Studies: several variants x player counts x tables in one file, run cell by cell, one report.

A study file names variants (config files), runs (players, agents, games) and figures (what to show,
with published values to set beside ours). See ``configs/citywright/appendix.yaml``.
"""

from .changes import study_changes
from .model import Figure, Run, Study, StudyError, load_study
from .runner import StudyResult, cell_dir, run_study

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
