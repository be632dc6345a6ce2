"""The stand-in game of the sweep and tune tests (``standin_game``), importable by name, registered
in the game registry for each test that asks for the ``standin`` fixture."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

BASE_YAML = """\
game: standin
variant: base
players: [2, 4]
faces: 6
edge: {"2": [3, 0], "4": [3, 2, 1, 0]}     # seat s adds edge[s] to its die
bonus: {"2": [0, 0], "4": [0, 0, 0, 0]}    # the compensation a tune looks for
"""


@pytest.fixture
def standin(monkeypatch, tmp_path):
    """Register the stand-in game and write its base variant; returns the base file's path."""
    from balancer.core import registry

    monkeypatch.setitem(registry.GAMES, "standin", "standin_game")
    base = tmp_path / "configs" / "base.yaml"
    base.parent.mkdir()
    base.write_text(BASE_YAML, encoding="utf-8")
    return base
