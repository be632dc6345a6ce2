"""Tuning any YAML number to a balance target: a tune file (:mod:`balancer.tune.model`), the Optuna
search with successive halving over cached, common-random-number cells and the confirmation run
(:mod:`balancer.tune.search`), and the tuned variant file (:mod:`balancer.tune.write`)."""

from .model import TunePlan, load_tune
from .search import TuneResult, run_tune

__all__ = ["TunePlan", "TuneResult", "load_tune", "run_tune"]
