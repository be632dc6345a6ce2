"""The games: one subpackage per game, each with config.py, rules.py, scoring.py, agents.py, and a
``SPEC`` (:class:`balancer.core.registry.GameSpec`) in its ``__init__.py``.

The registry itself lives in :mod:`balancer.core.registry`; these names are re-exported for callers.
"""

from __future__ import annotations

from ..core.registry import GAME_PROBLEMS, GAMES, GameSpec, all_specs, get_spec

__all__ = ["GAME_PROBLEMS", "GAMES", "GameSpec", "all_specs", "get_spec"]
