"""Games found through the ``balancer.games`` entry points (balancer/core/registry.py): balancer's own
four from its own pyproject.toml, a third-party game like them, and the problems a broken or malformed
registration is reported with, without breaking the other games."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.core import registry

BUILTIN = {g: f"balancer.games.{g}" for g in ("agueda", "citywright", "urban_sketchers", "urgency")}


def _ep(name: str, value: str, dist: str = "balancer-thirdparty"):
    return SimpleNamespace(name=name, value=value, dist=SimpleNamespace(name=dist, version="1.0"))


def test_balancers_own_games_are_entry_points():
    games, origins, problems = registry.discover_games()
    assert {n: m for n, m in games.items() if n in BUILTIN} == BUILTIN
    assert origins["urgency"] == "entry point 'urgency = balancer.games.urgency' of balancer 0.1.0"
    assert not {n: p for n, p in problems.items() if n in BUILTIN}


def test_registry_names_no_game_module():
    source = Path(registry.__file__).read_text(encoding="utf-8")
    assert "balancer.games." not in source.split('"""', 2)[2]  # only the docstring mentions a package


def test_malformed_and_duplicate_entry_points_are_problems(monkeypatch):
    found = [
        _ep("urgency", "balancer.games.urgency", "balancer"),
        _ep("urgency", "someone_else.urgency"),
        _ep("pig", "balancer_pig:SPEC"),
        _ep("Bad-Name", "bad"),
    ]
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: found)
    games, origins, problems = registry.discover_games()
    assert games == {"urgency": "balancer.games.urgency", "pig": "balancer_pig:SPEC"}
    assert "someone_else.urgency" in problems["urgency"] and "is ignored" in problems["urgency"]
    assert "import path of the game's package" in problems["pig"]
    assert "lower case" in problems["Bad-Name"]
    monkeypatch.setattr(registry, "GAMES", {**registry.GAMES, "pig": "balancer_pig:SPEC"})
    monkeypatch.setitem(registry.GAME_PROBLEMS, "pig", problems["pig"])
    with pytest.raises(registry.GameImportError, match="balancer-thirdparty 1.0"):
        registry.get_spec("pig")


def test_a_broken_game_names_its_entry_point_and_does_not_break_the_listing(monkeypatch, tmp_path):
    (tmp_path / "broken_game.py").write_text("import no_such_module_anywhere\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.GAMES, "broken", "broken_game")
    where = "entry point 'broken = broken_game' of balancer-broken 0.1"
    monkeypatch.setitem(registry.GAME_ORIGINS, "broken", where)
    with pytest.raises(ImportError, match=f"game 'broken' \\({where}\\) failed to import: ModuleNotFoundError"):
        registry.get_spec("broken")
    result = CliRunner().invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    assert "broken: not available (game 'broken' (entry point" in result.output
    assert "citywright  agents:" in result.output and "urgency  agents:" in result.output
    # a config naming it: one line naming the entry point, exit 2
    (tmp_path / "b.yaml").write_text("game: broken\nvariant: x\nplayers: [2]\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "b.yaml")])
    assert result.exit_code == 2 and "failed to import" in result.output and "Traceback" not in result.output
    sys.modules.pop("broken_game", None)
