"""Generic agents register themselves (balancer/core/generic_agents.py): found through the entry
point group, seated by the registry at every game with a compiled interface, their parameters
validated under ``agents.<key>`` of a game's YAML by their own model, and no game names them."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path
from typing import Literal

import pytest
from pydantic import Field, ValidationError

from balancer.core import registry
from balancer.core.config import GameConfig, Strict
from balancer.core.generic_agents import (
    GenericAgent,
    config_model_with,
    generic_agents,
    is_generic_seat,
    value_style,
)
from balancer.core.registry import GameSpec, known_agents_check, with_generic_agents

ROOT = Path(__file__).resolve().parents[2]


class StepParams(Strict):
    """The parameters of a stand-in generic agent."""

    steps: int = Field(3, ge=1, le=9, description="steps per decision")


class OwnAgents(Strict):
    """The stand-in game's own agents' parameters."""

    weight: float = 1.0


class StandinConfig(GameConfig):
    game: Literal["standin"]
    agents: OwnAgents


class Step(GenericAgent[GameSpec]):
    """A stand-in generic agent: ``step`` and ``step+far``; it plays a table by the number of its seats."""

    name = "step"
    params_key = "step"
    params_model = StepParams

    def is_name(self, name: str) -> bool:
        return name in ("step", "step+far")

    def style(self, name: str) -> str | None:
        return "far" if name == "step+far" else None

    def play_game(self, spec, cfg, agents, seed):
        return ("step played", spec.name, tuple(agents))


STEP = Step()


def _spec(engine: object = object()) -> GameSpec:
    unused = None
    return GameSpec(
        name="standin",
        display_name="Stand-in",
        config_model=StandinConfig,
        default_config="standin/none.yaml",
        agents=("own",),
        own_check_agent=known_agents_check(("own",)),
        own_play_game=unused,  # type: ignore[arg-type]
        own_transcript=unused,  # type: ignore[arg-type]
        own_make_agent=unused,  # type: ignore[arg-type]
        new_game=unused,  # type: ignore[arg-type]
        legal_moves=unused,  # type: ignore[arg-type]
        apply=unused,  # type: ignore[arg-type]
        is_over=unused,  # type: ignore[arg-type]
        outcome=unused,  # type: ignore[arg-type]
        is_legal_move=unused,  # type: ignore[arg-type]
        source=Path(__file__),
        module=__name__,
        engine=engine,  # type: ignore[arg-type]
    )


@pytest.fixture
def with_step(monkeypatch):
    """``step`` registered beside the installed generic agents; the registry's cache fresh."""
    monkeypatch.setattr(registry, "generic_agents", lambda: (*generic_agents(), STEP))
    monkeypatch.setattr("balancer.core.generic_agents.generic_agents", lambda: (*generic_agents(), STEP))
    monkeypatch.setattr(registry, "_SEATED", {})


DATA = {"game": "standin", "variant": "v", "players": [2], "agents": {"weight": 2.0}}


def test_mcts_is_found_through_its_entry_point():
    agents = {a.name: a for a in generic_agents()}
    assert "mcts" in agents and agents["mcts"].params_key == "mcts"
    assert is_generic_seat("mcts@200") and is_generic_seat("mcts+park") and not is_generic_seat("greedy")
    assert not is_generic_seat("mcts@x")  # malformed: the game's check_agent words the message
    assert value_style("mcts+commercial@200") == "commercial" and value_style("mcts@5") is None


def test_a_registered_agent_is_seated_and_its_parameters_live_under_agents(with_step):
    spec = with_generic_agents(_spec())
    installed = tuple(a.name for a in generic_agents())  # mcts, and any other installed generic agent
    assert spec.generic_agents == (*installed, "step") and "mcts" in installed and with_generic_agents(spec) is spec
    assert with_generic_agents(_spec()) is not spec  # another spec object: seated afresh
    assert spec.check_agent("step", None) is None and "mcts" in spec.extra_agents and "step" in spec.extra_agents
    assert spec.seated[-1] is STEP and spec.generic_for("step+far") is STEP and spec.generic_for("own") is None
    # a table with its seat is the agent's to play, given the spec; any other is the game's
    assert spec.play_game(None, ["own", "step"], 1) == ("step played", "standin", ("own", "step"))
    assert spec.play_chunk(None, ["own", "step"], 1, 0, 2) is None and spec.chunk_games(None, ["step"]) is None
    assert "cannot sit at one table" in spec.check_table(["mcts", "step"], None)
    assert "unknown agent 'stpe'" in spec.check_agent("stpe", None) and "(did you mean 'step'?)" in spec.check_agent(
        "stpe", None
    )
    assert is_generic_seat("step") and value_style("step+far") == "far"
    model = spec.config_model
    assert issubclass(model, StandinConfig) and model.__name__ == "StandinConfig"
    assert list(model.model_fields) == list(StandinConfig.model_fields)
    cfg = model.model_validate(DATA, strict=True)
    assert cfg.agents.weight == 2.0 and cfg.agents.step == StepParams() and cfg.agents.mcts.iterations == 1000
    cfg = model.model_validate({**DATA, "agents": {"weight": 2.0, "step": {"steps": 5}}}, strict=True)
    assert cfg.agents.step.steps == 5
    # another process rebuilds the same classes from the game's own model (Dask, loky workers)
    again = pickle.loads(pickle.dumps(cfg))
    assert again == cfg and type(again) is model and type(again.agents) is type(cfg.agents)
    with pytest.raises(ValidationError) as bad:
        model.model_validate({**DATA, "agents": {"weight": 2.0, "step": {"steps": 0}}}, strict=True)
    assert [e["loc"] for e in bad.value.errors()] == [("agents", "step", "steps")]
    with pytest.raises(ValidationError):  # a typo is still an error
        model.model_validate({**DATA, "agents": {"weight": 2.0, "stpe": {}}}, strict=True)


def test_a_game_without_a_compiled_interface_seats_none(with_step):
    spec = _spec(engine=None)
    assert with_generic_agents(spec) is spec


def test_a_key_a_game_declares_itself_cannot_be_taken(with_step):
    class Clash(Strict):
        step: int = 1

    class ClashConfig(GameConfig):
        agents: Clash

    with pytest.raises(TypeError, match="step"):
        config_model_with(ClashConfig, (("step", StepParams),))


def test_a_config_model_without_agents_gains_them():
    model = config_model_with(GameConfig, (("step", StepParams),))
    cfg = model.model_validate({"game": "g", "variant": "v", "players": [1]})
    assert cfg.agents.step == StepParams()


def test_no_game_imports_a_generic_agent():
    for path in (ROOT / "balancer" / "games").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any(n.startswith(("balancer.agents", "...agents")) for n in names), f"{path}: {names}"


class _Point:
    """A stand-in ``balancer.agents`` entry point (importlib.metadata's EntryPoint: name, value, dist, load)."""

    def __init__(self, name: str, value: str, load, dist: str = "other-pkg"):
        self.name, self.value, self._load = name, value, load
        self.dist = type("Dist", (), {"name": dist, "version": "1.0"})()

    def load(self):
        return self._load()


def _raise(exc: BaseException):
    def load():
        raise exc

    return load


def test_a_broken_or_duplicate_registration_is_left_out_and_said_not_raised(monkeypatch):
    import balancer.core.generic_agents as ga

    real = list(ga.entry_points(group=ga.ENTRY_POINTS))
    points = [
        *real,
        _Point("ghost", "nowhere.mod:AGENT", _raise(ModuleNotFoundError("No module named 'nowhere'"))),
        _Point("wrong", "pkg:AGENT", lambda: object()),
        _Point("mcts", "pkg:AGENT", lambda: Step()),  # another package's mcts: balancer's own is kept
    ]
    monkeypatch.setattr(ga, "entry_points", lambda group: points)
    monkeypatch.setattr(ga, "AGENT_PROBLEMS", {})
    monkeypatch.setenv("BALANCER_PLUGINS_PROBED", '["pkg:AGENT"]')  # stand-ins: no child process imports them
    ga.generic_agents.cache_clear()
    try:
        agents = ga.generic_agents()
        problems = dict(ga.AGENT_PROBLEMS)
    finally:
        ga.generic_agents.cache_clear()
    assert [a.name for a in agents] == ["mcts"] and type(agents[0]).__name__ == "MCTS"
    assert (
        "entry point 'ghost = nowhere.mod:AGENT' (group balancer.agents) of other-pkg 1.0 failed to import"
        in problems["ghost"]
    )
    assert "ModuleNotFoundError" in problems["ghost"]
    assert problems["wrong"].endswith("not the GenericAgent named 'wrong'")
    assert problems["mcts"].startswith("registered twice:") and "other-pkg 1.0 is ignored" in problems["mcts"]


def test_a_games_own_agent_name_stays_the_games_whatever_a_generic_agent_claims(with_step):
    class Grabby(Step):
        name = "grabby"

        def is_name(self, name: str) -> bool:  # claims every name, the game's own included
            return True

    spec = with_generic_agents(_spec())
    grabby = GameSpec.__new__(GameSpec)
    grabby.__dict__.update({**spec.__dict__, "seated": (Grabby(),)})
    assert grabby.generic_for("own") is None and isinstance(grabby.generic_for("other"), Grabby)


def test_the_engine_hash_covers_a_generic_agent_from_another_package(tmp_path, monkeypatch):
    import importlib
    import sys

    from balancer.core.registry import get_spec
    from balancer.sim.provenance import engine_sha256

    package = tmp_path / "outside_agent"
    package.mkdir()
    (package / "__init__.py").write_text("")
    code = (
        "from balancer.core.generic_agents import GenericAgent\n"
        "class First(GenericAgent):\n"
        "    name = 'first'\n"
        "    def is_name(self, name):\n"
        "        return name == 'first'\n"
    )
    (package / "agent.py").write_text(code + "# plays the first move\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("outside_agent.agent")
    try:
        spec = get_spec("urgency")
        seated = GameSpec.__new__(GameSpec)
        seated.__dict__.update({**spec.__dict__, "seated": (*spec.seated, module.First())})
        before = engine_sha256(seated)
        assert before != engine_sha256(spec)  # the outside agent's code is part of what played
        (package / "agent.py").write_text(code + "# plays the last move\n")
        assert engine_sha256(seated) != before  # its change is never mixed with numbers played before it
    finally:
        for name in ("outside_agent.agent", "outside_agent"):
            sys.modules.pop(name, None)
