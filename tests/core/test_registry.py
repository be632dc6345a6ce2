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
from balancer.config import load_config
from balancer.core import registry
from balancer.data import builtin_config

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


def _module(name: str, **names):
    return SimpleNamespace(
        __name__=name,
        __file__=str(Path(registry.__file__)),
        NAME=name,
        CONFIG_MODEL=object,
        AGENTS=("random",),
        play_game=print,
        transcript=print,
        make_agent=print,
        **names,
    )


def test_the_protocol_is_derived_from_the_engine_unless_the_game_defines_it():
    """Urban Sketchers defines none of the six protocol functions: each is core.protocol's, new_game
    bound to its engine (a position over its compiled interface). Urgency defines new_game (the
    seats' decks) and is given its own; the other five are derived."""
    from balancer.core import protocol
    from balancer.games import urban_sketchers, urgency

    us = urban_sketchers.SPEC
    assert (us.legal_moves, us.apply, us.is_over, us.outcome, us.is_legal_move) == (
        protocol.legal_moves,
        protocol.apply,
        protocol.is_over,
        protocol.outcome,
        protocol.is_legal_move,
    )
    assert us.new_game.func is protocol.new_game and us.new_game.args == (urban_sketchers.ENGINE,)
    pos = us.new_game(load_config(builtin_config(us.default_config)), 2, 7)
    assert isinstance(pos, protocol.Position) and pos.engine is urban_sketchers.ENGINE and pos.n_players == 2
    assert urgency.SPEC.new_game is urgency.new_game and urgency.SPEC.apply is protocol.apply


def test_a_game_without_an_engine_must_define_the_protocol():
    own = {n: print for n in registry.PROTOCOL}
    assert registry.spec_from_module(_module("mine", **own), default_config="x.yaml").apply is print
    partial = {n: print for n in registry.PROTOCOL if n != "outcome"}
    with pytest.raises(ValueError, match="mine: defines no outcome and gives no engine"):
        registry.spec_from_module(_module("mine", **partial), default_config="x.yaml")


def test_games_tells_the_shipped_games_from_plugins(monkeypatch):
    """Issue 50: ``balancer games`` listed the example plugin pig like a shipped rulebook. A game
    another distribution registers is named with it, in the first line and under the game (here one
    whose package is not installed: listed as not available, still as a plugin)."""
    assert registry.plugin_of("citywright") is None  # "... of balancer 0.1.0": balancer's own
    monkeypatch.setitem(registry.GAMES, "hog", "balancer_hog_not_installed")
    where = "entry point 'hog = balancer_hog_not_installed' of balancer-hog 0.2"
    monkeypatch.setitem(registry.GAME_ORIGINS, "hog", where)
    assert registry.plugin_of("hog") == "balancer-hog 0.2"
    assert registry.plugin_of("no_such_game") is None
    result = CliRunner().invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    head = " ".join(line.strip() for line in lines[: next(i for i, ln in enumerate(lines) if ln.startswith("agueda"))])
    assert head.startswith("shipped with balancer: agueda, citywright, urban_sketchers, urgency; plugins: ")
    assert "hog (balancer-hog 0.2)" in head
    hog = next(i for i, line in enumerate(lines) if line.startswith("hog: not available"))
    assert lines[hog + 1 :][:3].count("  plugin: installed by balancer-hog 0.2, not shipped with balancer") == 1
    citywright = next(i for i, line in enumerate(lines) if line.startswith("citywright  agents: "))
    assert not any("plugin" in line for line in lines[citywright : citywright + 4])
