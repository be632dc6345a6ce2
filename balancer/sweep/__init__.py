"""Parameter sweeps: one or two YAML paths of a base variant, each value a point played as a cached
cell with the same game seeds (common random numbers); see :mod:`balancer.sweep.model` for the file,
:mod:`balancer.sweep.targets` for targets, :mod:`balancer.report.sweep` for the report."""

from .model import SweepError, SweepPlan, load_sweep
from .runner import SweepResult, run_sweep

__all__ = ["SweepError", "SweepPlan", "SweepResult", "load_sweep", "run_sweep"]
