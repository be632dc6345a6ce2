"""The game registry: one subpackage per game, each with config.py, rules.py, scoring.py, agents.py.

Every module listed here follows the protocol of :mod:`balancer.core.game`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES: dict[str, str] = {
    "agueda": "balancer.games.agueda",
    "citywright": "balancer.games.citywright",
    "urban_sketchers": "balancer.games.urban_sketchers",
    "urgency": "balancer.games.urgency",
}
"""Game name (the ``game:`` key of a config) -> module path."""


def get_game(name: str) -> ModuleType:
    """The game module registered as ``name``; raises KeyError naming the known games."""
    try:
        path = GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}") from None
    return importlib.import_module(path)
