"""Generic agents: agents that play every game with a compiled interface (``mcts``), registered apart
from the games (docs/agents.md, "Adding a generic agent"; TAG's player factory, OpenSpiel's bots).

A generic agent is one module that defines a :class:`GenericAgent` and one entry point in the group
:data:`ENTRY_POINTS` that names it (in ``pyproject.toml``: ``mcts = "<module>:AGENT"``).
core names no agent module: :func:`generic_agents` finds the registrations through the entry points,
and the registry (:func:`balancer.core.registry.spec_at`) seats them in the spec of every game with
a compiled interface (``GameSpec.seated``): the spec hands a table with one of their seats to the
agent's own methods, so every caller (run, study, Dask workers, play, the conformance suite) sees
them alike, and no function of the game is wrapped. A game never imports an agent: what a generic
agent needs of a game is data of its spec (``engine``, ``seat_agent``, ``game_agent``, ``compile_table``, ``value_styles``), and
its parameters are the ``agents.<params_key>`` section of the game's YAML, validated by the agent's
own model, which :func:`config_model_with` adds to the game's config model (a game's model declares
only its own agents' parameters). ``random`` is no registration: it is the compiled interface's
uniform agent (:mod:`balancer.core.protocol`).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from .config import GameConfig, Strict
from .game import Outcome
from .plugins import PluginImportError, is_outside, load_plugin, probe

ENTRY_POINTS = "balancer.agents"
"""The entry point group of the generic agents: ``name = "package.module:OBJECT"``, OBJECT a
:class:`GenericAgent` called ``name``."""

S = TypeVar("S")
"""The spec a generic agent extends (:class:`balancer.core.registry.GameSpec`)."""

ParamFields = tuple[tuple[str, type[BaseModel]], ...]
"""``((key, model), ...)``: the ``agents:`` keys of registered generic agents and their parameter models."""


class GenericAgent(Generic[S]):
    """One generic agent's registration: its names and what it does at a game's tables. The registry
    keeps the registrations a game seats in its spec (``GameSpec.seated``), and the spec's
    ``check_agent``, ``play_game``, ``transcript``, ``make_agent`` and ``check_table`` hand a name or a
    table with one of its seats to the agent's method of the same name, given the spec
    (:class:`balancer.core.registry.GameSpec`), while its ``play_chunk`` and ``chunk_games`` give None
    for such a table (one game at a time, chunks of the runner's default size); the game's own agents
    keep the game's functions, and a game's own agent name is never a generic agent's. Subclass it and define :meth:`is_name`, :meth:`play_game` and what else the
    agent does; the defaults seat nothing more.

    name: the agent's name (``mcts``), also the name of its entry point.
    params_key, params_model: the key under ``agents:`` of a game's YAML that holds this agent's
    parameters (``mcts``), and the pydantic model that validates them (its defaults fill a YAML
    without the key); None for an agent without parameters.
    """

    name: str = ""
    params_key: str | None = None
    params_model: type[BaseModel] | None = None

    def is_name(self, name: str) -> bool:
        """Whether an agent name at a table is this agent's (``mcts``, ``mcts@200``, ``mcts+park``), well formed."""
        raise NotImplementedError

    def claims(self, name: str) -> bool:
        """Whether ``name`` belongs to this agent's family, malformed ones included (``mcts@x``), whose
        messages :meth:`check_name` gives. Default: :meth:`is_name`."""
        return self.is_name(name)

    def style(self, name: str) -> str | None:
        """The value style an agent name asks of the game's ``compile_table`` (``mcts+park`` -> ``park``;
        see :func:`value_style`); None by default."""
        return None

    def check_name(self, spec: S, name: str, cfg: Any = None) -> str | None:
        """None when ``name`` (one :meth:`claims`) can sit at a table of ``spec`` (under ``cfg``), else why not."""
        return None if self.is_name(name) else f"agent {name!r} is not a well-formed {self.name} name"

    def names(self, spec: S) -> str:
        """The names this agent answers to at ``spec``'s tables, for a message (``mcts, mcts@N``)."""
        return self.name

    def note(self, spec: S) -> str:
        """A line on its names for ``balancer games`` (``GameSpec.agent_note``), or ``""``."""
        return ""

    def check_table(self, spec: S, cfg: Any, agents: Sequence[str]) -> str | None:
        """None when ``agents`` (a seat of which is this agent's) can sit at one table of ``spec``, else why not."""
        return None

    def play_game(self, spec: S, cfg: Any, agents: Sequence[str], seed: Any) -> Outcome:
        """One whole game of a table with a seat of this agent: its ``Outcome``."""
        raise NotImplementedError

    def transcript(self, spec: S, cfg: Any, agents: Sequence[str], seed: Any) -> str:
        """``balancer play``'s account of that game."""
        raise ValueError(f"{self.name} gives no transcript of a game")

    def make_agent(self, spec: S, cfg: Any, name: str) -> Any:
        """An agent of the Python protocol called ``name`` (one :meth:`is_name` accepts)."""
        raise ValueError(f"agent {name!r}: {self.name} does not play through the Python protocol")


AGENT_PROBLEMS: dict[str, str] = {}
"""Agent name -> why its ``balancer.agents`` entry point is not seated (it fails to import, names no
:class:`GenericAgent` of its name, or the name is registered twice), for ``balancer games``; filled by
:func:`generic_agents`. A broken registration leaves every game and every other agent playable."""


def _dist_name(point: Any) -> str:
    dist = getattr(point, "dist", None)
    return "" if dist is None else str(dist.name)


def _origin(point: Any) -> str:
    dist = getattr(point, "dist", None)
    return f"entry point '{point.name} = {point.value}' (group {ENTRY_POINTS}) of " + (
        "an unknown distribution" if dist is None else f"{dist.name} {dist.version}"
    )


@functools.cache
def generic_agents() -> tuple[GenericAgent[Any], ...]:
    """Every registered generic agent, by name (the installed packages' :data:`ENTRY_POINTS`; loaded
    once per process). An entry point that fails to import or names no :class:`GenericAgent` of its
    name, and a name registered twice (balancer's own kept), are left out and said in
    :data:`AGENT_PROBLEMS`. Another package's agent is tried in a child process first, all of them at
    once, then imported with its output discarded (:mod:`.plugins`): its ``SystemExit``,
    ``KeyboardInterrupt``, ``os._exit`` or slow import is its problem, not the command's end."""
    found: dict[str, GenericAgent[Any]] = {}
    origins: dict[str, str] = {}
    points = sorted(entry_points(group=ENTRY_POINTS), key=lambda p: (p.name, _dist_name(p) != "balancer"))
    probe(p.value for p in points if is_outside(p.value))  # every other package's agent at once, in children
    for point in points:
        where = _origin(point)
        if point.name in found:
            AGENT_PROBLEMS[point.name] = f"registered twice: {origins[point.name]} is used, {where} is ignored"
            continue
        try:  # another package's agent cannot end or hang the command, nor print into it (core/plugins.py)
            agent = load_plugin(point.value, point.load)
        except PluginImportError as exc:  # SystemExit, KeyboardInterrupt, os._exit, a slow import: said, not obeyed
            AGENT_PROBLEMS[point.name] = f"{where} failed to import: {exc}"
            continue
        except Exception as exc:  # another package's import error, whatever it is: name its entry point
            AGENT_PROBLEMS[point.name] = f"{where} failed to import: {type(exc).__name__}: {exc}"
            continue
        if not isinstance(agent, GenericAgent) or agent.name != point.name:
            AGENT_PROBLEMS[point.name] = f"{where}: not the GenericAgent named {point.name!r}"
            continue
        found[agent.name], origins[agent.name] = agent, where
    return tuple(found.values())


def params_of(agents: Iterable[GenericAgent[Any]]) -> ParamFields:
    """The ``agents:`` keys and parameter models of ``agents`` (those that have parameters)."""
    return tuple(
        (a.params_key, a.params_model) for a in agents if a.params_key is not None and a.params_model is not None
    )


def is_generic_seat(name: str) -> bool:
    """Whether agent ``name`` is a registered generic agent's (``mcts@200``), not a game's own: a game
    whose table depends on its own agents' names (Urgency's ``greedy+bull`` deck) sets a generic seat
    up as it sets up a plain one."""
    return any(a.is_name(name) for a in generic_agents())


def value_style(name: str) -> str | None:
    """The value style agent ``name`` asks of the game's ``compile_table`` (``mcts+commercial@200`` ->
    ``commercial``), or None: which styles a game has, it says (``GameSpec.value_styles``)."""
    for agent in generic_agents():
        style = agent.style(name)
        if style is not None:
            return style
    return None


# --------------------------------------------------------------------------------------------------
# agent parameters beside the rules: a game's config model, extended by the generic agents' models

Make = Callable[..., Any]
""":func:`agents_model_with` or :func:`config_model_with`."""

_ORIGIN: dict[type[BaseModel], tuple[Make, type[BaseModel], ParamFields]] = {}


def _restore(
    make: Make,
    base: type[BaseModel],
    params: ParamFields,
    state: dict[str, Any],
) -> BaseModel:
    """An instance of ``make(base, params)`` from its pickled ``state`` (another process rebuilds the
    extended model, by name, from the game's own model)."""
    model: type[BaseModel] = make(base, params)
    obj = model.__new__(model)
    obj.__setstate__(state)
    return obj


def _reduce(self: BaseModel) -> tuple[Any, ...]:
    """Pickle an instance of an extended model by the models it is built from (the class itself is
    made at run time, so another process cannot import it by name)."""
    return (_restore, (*_ORIGIN[type(self)], self.__getstate__()))


def _subclass(
    base: type[BaseModel],
    fields: dict[str, tuple[Any, Any]],
    make: Make,
    params: ParamFields,
) -> type[BaseModel]:
    """``base`` with ``fields`` (name -> (annotation, default or FieldInfo)) declared again or added,
    under the same name, docstring and validators."""
    namespace: dict[str, Any] = {
        "__module__": base.__module__,
        "__qualname__": base.__qualname__,
        "__doc__": base.__doc__,
        "__annotations__": {name: annotation for name, (annotation, _) in fields.items()},
        "__reduce__": _reduce,
        **{name: value for name, (_, value) in fields.items()},
    }
    metaclass: Any = type(base)  # pydantic's model metaclass: the class statement, made at run time
    model: type[BaseModel] = metaclass(base.__name__, (base,), namespace)
    _ORIGIN[model] = (make, base, params)
    return model


@functools.cache
def agents_model_with(base: type[BaseModel], params: ParamFields) -> type[BaseModel]:
    """The model of a game's ``agents:`` section (``base``) with one more key per generic agent
    (``params``: ``mcts: MCTSParams = MCTSParams()``), after the game's own keys."""
    clash = [key for key, _ in params if key in base.model_fields]
    if clash:
        raise TypeError(f"{base.__qualname__} declares {', '.join(clash)}: the key of a generic agent's parameters")
    return _subclass(base, {key: (model, model()) for key, model in params}, agents_model_with, params)


@functools.cache
def config_model_with(base: type[GameConfig], params: ParamFields) -> type[GameConfig]:
    """A game's config model (``base``) whose ``agents:`` section also holds the generic agents'
    parameters (:func:`agents_model_with`); a model without ``agents`` gains one that holds only
    them. The same model otherwise: field names and order, descriptions, validators, class names
    (what ``balancer show``, the JSON schema and error messages print). A subclass of ``base``."""
    if not params:
        return base
    info = base.model_fields.get("agents")
    if info is None:
        agents = agents_model_with(Strict, params)
        field: Any = agents()
    else:
        own = info.annotation
        if not (isinstance(own, type) and issubclass(own, BaseModel)):
            raise TypeError(f"{base.__qualname__}.agents: a model of agent parameters, not {own!r}")
        agents = agents_model_with(own, params)
        field = copy.copy(info)
        field.annotation = agents
        if isinstance(info.default, BaseModel):
            field.default = agents.model_validate(info.default.model_dump())
    model = _subclass(base, {"agents": (agents, field)}, config_model_with, params)
    assert issubclass(model, GameConfig)
    return model
