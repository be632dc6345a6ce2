"""The ladder stand-in game (``ladder_standin``), importable by name (also by worker processes, through
PYTHONPATH) and registered for each test that asks for the ``ladder_game`` fixture."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

BASE_YAML = """\
game: ladderstandin
variant: base
players: [2, 3, 4]
strength: {weak: 1, mid: 2, strong: 4, top: 8, twin: 1}   # Plackett-Luce weights (log-strength ln w)
seat_power: {}
seat_factor: {}                                            # every seat equal
"""


@pytest.fixture
def ladder_game(monkeypatch, tmp_path):
    """Register the stand-in and write its base variant (``configs/base.yaml``); returns its path."""
    from balancer.core import registry

    monkeypatch.setitem(registry.GAMES, "ladderstandin", "ladder_standin")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (_HERE, os.environ.get("PYTHONPATH", "")) if p))
    base = tmp_path / "configs" / "base.yaml"
    base.parent.mkdir()
    base.write_text(BASE_YAML, encoding="utf-8")
    return base
