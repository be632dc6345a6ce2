"""The game registry: one frozen :class:`GameSpec` per game (docs/architecture.md, "Compiled game interface").

Everything outside ``balancer/games/`` finds what it needs of a game here, never by ``getattr`` on
a module: the config model, the agents, the Python protocol, the fast ``play_game`` entry of the
runner, the compiled interface (:class:`~balancer.core.kernel.Engine`) and the optional tools
(``score``, a config's data description). (The shape follows PettingZoo's ``EnvSpec``.)

A game registers by defining ``SPEC`` in its package's ``__init__.py`` and one entry point in the
group ``balancer.games`` of its distribution's metadata (``pyproject.toml``)::

    [project.entry-points."balancer.games"]
    pig = "balancer_pig"

The name is the ``game:`` key of its configs; the value is the import path of the game's package
(a module, not ``module:attribute``), whose ``SPEC`` is read. balancer's own four games register
the same way, in balancer's ``pyproject.toml``, so this module names no game. :data:`GAMES` is
filled from the installed entry points when this module is imported (:func:`discover_games`).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .batch import GameBatch
from .config import GameConfig
from .game import Outcome
from .generic_agents import config_model_with, generic_agents, params_of
from .kernel import Engine
from .metrics import MetricSpecs

ENTRY_POINT_GROUP = "balancer.games"
"""The entry point group a game registers in: ``name = "package.module"`` (see the module docstring)."""

GAMES: dict[str, str] = {}
"""Game name (the ``game:`` key of a config) -> the package whose ``SPEC`` describes it: every
``balancer.games`` entry point installed, balancer's own games included (filled at import)."""

GAME_ORIGINS: dict[str, str] = {}
"""Game name -> where it was registered (``entry point 'pig = balancer_pig' of balancer-pig 0.1.0``),
for error messages."""

GAME_PROBLEMS: dict[str, str] = {}
"""Game name -> what is wrong with its registration (a malformed entry point, a name registered
twice), for ``balancer games``; a malformed one cannot be played (:func:`get_spec` raises it)."""

Seed = np.random.SeedSequence | int


@dataclass(frozen=True)
class GameSpec:
    """What the rest of balancer knows of one game.

    name: the ``game:`` key of its configs; display_name: for titles.
    config_model: the pydantic model of its YAML (``extra="forbid"``).
    default_config: its main variant, relative to the repository's ``configs/``.
    agents: agent names the game plays (the conformance suite plays every one);
    extra_agents: names accepted but too slow for the conformance suite; agent_note: one line on
    agent-name syntax for ``balancer games``.
    check_agent: ``(name, cfg) -> message | None``: why ``name`` cannot sit at a table of ``cfg``.
    play_game: ``(cfg, agents by seat, seed) -> Outcome``: one whole game at full speed.
    transcript: ``(cfg, agents, seed) -> str``: ``balancer play``'s account of one game.
    make_agent: ``(cfg, name) -> Agent`` for the Python protocol.
    new_game, legal_moves, apply, is_over, outcome, is_legal_move: the Python protocol
    (core/game.py), derived from ``engine`` once a game has its compiled interface.
    engine: the compiled interface, or None for a game that does not provide one yet.
    max_protocol_moves: ``apply`` calls after which a game stepped through the protocol is said not
    to end (conformance).
    score_table_text: ``(cfg, text) -> {category: points}`` for ``balancer score``, or None.
    describe_config: ``cfg -> str``: a data summary ``balancer validate`` prints, or None.
    play_chunk: ``(cfg, agents of game 0, run_seed, start, stop) -> GameBatch | None``: games
    ``start..stop-1`` of a run in one compiled call (:mod:`balancer.core.batch`); it (or the field)
    is None to play them one ``play_game`` at a time. Must give the same records as ``play_game``.
    chunk_games: ``(cfg, agents of game 0) -> int``: the most games a default chunk of this table
    holds (about a second of play: fast compiled tables take large chunks, so that writing a chunk
    costs little beside playing it), or None for the runner's default (2,000).
    check_table: ``(agents by seat, cfg) -> message | None``: why these agents cannot sit at one
    table (each name having passed ``check_agent``), or None for a game where any mix can.
    table_note: ``(cfg, agents by seat) -> sentence | None``: what ``run`` and the report must say
    about a table the printed game cannot seat (Urgency: one deck at both seats), or None.
    metrics: the game's score categories and metrics (:mod:`balancer.core.metrics`, declared in
    ``games/<game>/metrics.py``), or None for a game that declares none.
    seat_agent, game_agent, compile_table, value_styles, style_note: what the game gives a compiled
    table that seats generic agents (:mod:`balancer.core.generic_agents`; data, the game imports no
    agent). ``seat_agent(cfg, name) -> (code, row) | None``: one of its own agents at such a table
    (its compiled agent's code, ``>= GAME_AGENT``, and a float64 row of that agent's parameters), None
    when ``name`` has no compiled form; ``game_agent``: the compiled dispatcher that plays those codes
    (contract: docs/mcts.md, "What a game provides"); ``compile_table(cfg, agents) -> T``: the rule table of
    such a table, for a game whose agent names change the setup (Urgency's ``+deck``) or the value a
    seat's search backs up (None: ``engine.compile(cfg, len(agents))``); ``value_styles``: the styles
    of value ``compile_table`` gives a seat (``mcts+STYLE``, :func:`~.generic_agents.value_style`),
    with ``style_note``, a line for ``balancer games``.
    generic_agents: the names of the generic agents seated in this spec (set by the registry).
    source: the game's package directory (engine hash, numba cache upkeep).
    module: the import path of the package that defines it (worker processes re-import it).
    """

    name: str
    display_name: str
    config_model: type[GameConfig]
    default_config: str
    agents: tuple[str, ...]
    check_agent: Callable[[str, Any], str | None]
    play_game: Callable[[Any, Sequence[str], Seed], Outcome]
    transcript: Callable[[Any, Sequence[str], Seed], str]
    make_agent: Callable[[Any, str], Any]
    new_game: Callable[[Any, int, Seed], Any]
    legal_moves: Callable[[Any], list[Any]]
    apply: Callable[[Any, Any], Any]
    is_over: Callable[[Any], bool]
    outcome: Callable[[Any], Outcome]
    is_legal_move: Callable[[Any, Any], bool]
    source: Path
    module: str
    engine: Engine | None = None
    extra_agents: tuple[str, ...] = ()
    agent_note: str = ""
    max_protocol_moves: int = 10_000
    score_table_text: Callable[[Any, str], dict[str, int]] | None = None
    describe_config: Callable[[Any], str] | None = None
    play_chunk: Callable[[Any, Sequence[str], int, int, int], GameBatch | None] | None = None
    chunk_games: Callable[[Any, Sequence[str]], int] | None = None
    check_table: Callable[[Sequence[str], Any], str | None] | None = None
    table_note: Callable[[Any, Sequence[str]], str | None] | None = None
    metrics: MetricSpecs | None = None
    seat_agent: Callable[[Any, str], tuple[int, np.ndarray] | None] | None = None
    game_agent: Any = None
    compile_table: Callable[[Any, list[str]], Any] | None = None
    value_styles: tuple[str, ...] = ()
    style_note: str = ""
    generic_agents: tuple[str, ...] = ()


def known_agents_check(known: Sequence[str]) -> Callable[[str, Any], str | None]:
    """A ``check_agent`` that accepts exactly the names in ``known``."""
    names = tuple(known)

    def check(name: str, cfg: Any = None) -> str | None:
        if name in names:
            return None
        return f"unknown agent {name!r}; known agents: {', '.join(names)}"

    return check


_GAME_NAME = re.compile(r"[a-z][a-z0-9_]*")
_MODULE_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class GameImportError(ImportError):
    """A registered game whose package cannot be imported or has no valid ``SPEC``; the message names
    the game, its entry point and distribution, and the cause."""


def discover_games() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """``(GAMES, GAME_ORIGINS, GAME_PROBLEMS)`` from the installed ``balancer.games`` entry points
    (importlib.metadata; nothing is imported). A name registered twice keeps balancer's own entry
    point, else the first distribution by name, and the problem names the other."""
    from importlib.metadata import entry_points

    def dist(ep: Any) -> str:
        d = getattr(ep, "dist", None)
        return "an unknown distribution" if d is None else f"{d.name} {d.version}"

    games: dict[str, str] = {}
    origins: dict[str, str] = {}
    problems: dict[str, str] = {}
    found = sorted(
        entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: (not dist(ep).startswith("balancer "), dist(ep))
    )
    for ep in found:
        where = f"entry point '{ep.name} = {ep.value}' of {dist(ep)}"
        if ep.name in games:
            problems[ep.name] = f"registered twice: {origins[ep.name]} is used, {where} is ignored"
        elif not _GAME_NAME.fullmatch(ep.name):
            problems[ep.name] = f"{where}: a game name is lower case letters, digits and '_', starting with a letter"
        elif not _MODULE_PATH.fullmatch(ep.value):
            games[ep.name], origins[ep.name] = ep.value, where
            problems[ep.name] = (
                f"{where}: the value must be the import path of the game's package, such as 'balancer_pig'"
            )
        else:
            games[ep.name], origins[ep.name] = ep.value, where
    return games, origins, problems


def _register_installed_games() -> None:
    games, origins, problems = discover_games()
    GAMES.update(games)
    GAME_ORIGINS.update(origins)
    GAME_PROBLEMS.update(problems)


_register_installed_games()


def unknown_game(name: str) -> str:
    """``unknown game 'urban-sketchers' (did you mean 'urban_sketchers'?); known games: ...``: the
    suggestion when ``name`` is a registered name spelled with '-' for '_', other case, or a close typo."""
    import difflib

    known = sorted(GAMES)
    spelled = str(name).lower().replace("-", "_").replace(" ", "_")
    close = [spelled] if spelled in GAMES else difflib.get_close_matches(spelled, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    if not known:  # balancer's own entry points missing: metadata from an install older than them
        return f"unknown game {name!r}; no games are registered: reinstall balancer (pip install -e .)"
    return f"unknown game {name!r}{hint}; known games: {', '.join(known)}"


def get_spec(name: str) -> GameSpec:
    """The spec of the game registered as ``name``; raises KeyError naming the known games, and
    :class:`GameImportError` (an ImportError) naming the entry point and its distribution when the
    game's package cannot be imported or its ``SPEC`` is not this game's GameSpec."""
    try:
        path = GAMES[name]
    except KeyError:
        raise KeyError(unknown_game(name)) from None
    where = GAME_ORIGINS.get(name, f"package {path}")
    if not _MODULE_PATH.fullmatch(path):
        raise GameImportError(f"game {name!r}: {GAME_PROBLEMS.get(name, f'{path!r} is not a module path')}")
    try:
        spec = spec_at(path)
    except Exception as exc:  # a game's own import error, whatever it is: name the entry point
        raise GameImportError(f"game {name!r} ({where}) failed to import: {type(exc).__name__}: {exc}") from exc
    if not isinstance(spec, GameSpec):
        raise GameImportError(f"game {name!r} ({where}): {path}.SPEC is not a GameSpec (got {type(spec).__name__})")
    if spec.name != name:
        raise GameImportError(
            f"game {name!r} ({where}): {path}.SPEC is the game {spec.name!r} (its NAME); the entry point's "
            f"name and the game's NAME must be the same"
        )
    return spec


def spec_at(module_path: str) -> GameSpec:
    """The ``SPEC`` of the game package at ``module_path`` (what a worker process imports), with the
    generic agents seated (:func:`with_generic_agents`)."""
    spec: GameSpec = importlib.import_module(module_path).SPEC
    return with_generic_agents(spec)


_SEATED: dict[int, tuple[GameSpec, GameSpec]] = {}


def with_generic_agents(spec: GameSpec) -> GameSpec:
    """``spec`` extended by every registered generic agent it does not seat yet
    (:func:`~.generic_agents.generic_agents`): its config model holds their parameters
    (:func:`~.generic_agents.config_model_with`), then each agent's ``extend``. A game without a
    compiled interface seats none. The same object for the same ``spec`` (one config model per game
    and process)."""
    hit = _SEATED.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1]
    agents = [a for a in generic_agents() if a.name not in spec.generic_agents] if spec.engine is not None else []
    seated = spec
    if agents:
        seated = dataclasses.replace(seated, config_model=config_model_with(seated.config_model, params_of(agents)))
        for agent in agents:
            seated = dataclasses.replace(agent.extend(seated), generic_agents=(*seated.generic_agents, agent.name))
    _SEATED[id(spec)] = (spec, seated)
    return seated


def metric_specs_of(meta: Mapping[str, Any] | None) -> MetricSpecs | None:
    """The metric specs of a run: ``run.json``'s ``metric_specs`` (``meta``), else those of the
    registered game ``meta["game"]`` (run directories written before run.json recorded them), else
    None (a game that is not registered or declares none; see
    :func:`balancer.core.metrics.convention_spec`). A malformed ``metric_specs`` raises ValueError."""
    if not meta:
        return None
    recorded = meta.get("metric_specs")
    if isinstance(recorded, Mapping):
        return MetricSpecs.from_json(recorded)
    if recorded is not None:
        raise ValueError(f"metric_specs: must be an object, got {type(recorded).__name__}")
    game = meta.get("game")
    if not isinstance(game, str) or game not in GAMES:
        return None
    try:
        return get_spec(game).metrics
    except (ImportError, TypeError):
        return None


def all_specs() -> list[GameSpec]:
    """Every registered game's spec, by name."""
    return [get_spec(name) for name in sorted(GAMES)]


PROTOCOL = ("new_game", "legal_moves", "apply", "is_over", "outcome", "is_legal_move")
"""The Python protocol's functions (:class:`GameSpec`), derived from a game's engine unless it defines them."""


def _protocol_of(module: Any, engine: Engine | None) -> dict[str, Callable[..., Any]]:
    """The module's own function for each name of :data:`PROTOCOL`, else the one :mod:`.protocol`
    derives from ``engine`` (``new_game`` bound to it)."""
    from . import protocol

    if engine is None:
        missing = [name for name in PROTOCOL if not hasattr(module, name)]
        if missing:
            raise ValueError(
                f"{module.__name__}: defines no {', '.join(missing)} and gives no engine to derive them from "
                "(spec_from_module(..., engine=...))"
            )
        return {name: getattr(module, name) for name in PROTOCOL}
    derived: dict[str, Callable[..., Any]] = {
        "new_game": functools.partial(protocol.new_game, engine),
        "legal_moves": protocol.legal_moves,
        "apply": protocol.apply,
        "is_over": protocol.is_over,
        "outcome": protocol.outcome,
        "is_legal_move": protocol.is_legal_move,
    }
    return {name: getattr(module, name, None) or derived[name] for name in PROTOCOL}


def spec_from_module(
    module: Any,
    *,
    display_name: str | None = None,
    default_config: str,
    check_agent: Callable[[str, Any], str | None] | None = None,
    engine: Engine | None = None,
    **optional: Any,
) -> GameSpec:
    """The :class:`GameSpec` of a game package whose protocol functions are module-level names
    (``NAME``, ``CONFIG_MODEL``, ``AGENTS``, ``play_game``, ``transcript``, ``make_agent``); the one
    place that reads them, so that a game's ``__init__.py`` ends with ``SPEC = spec_from_module(...)``.

    The Python protocol (``new_game``, ``legal_moves``, ``apply``, ``is_over``, ``outcome``,
    ``is_legal_move``) is derived from ``engine`` (:mod:`balancer.core.protocol`: positions over the
    compiled interface) for each of them the module does not define; a game without an engine
    defines all six. ValueError naming the module when one is missing and there is no engine."""
    agents = tuple(module.AGENTS)
    extra = tuple(optional.pop("extra_agents", ()))
    game = _protocol_of(module, engine)
    return GameSpec(
        name=module.NAME,
        display_name=display_name or module.NAME.replace("_", " ").title(),
        config_model=module.CONFIG_MODEL,
        default_config=default_config,
        agents=agents,
        check_agent=check_agent or known_agents_check(agents + extra),
        play_game=module.play_game,
        transcript=module.transcript,
        make_agent=module.make_agent,
        new_game=game["new_game"],
        legal_moves=game["legal_moves"],
        apply=game["apply"],
        is_over=game["is_over"],
        outcome=game["outcome"],
        is_legal_move=game["is_legal_move"],
        source=Path(module.__file__).parent,
        module=module.__name__,
        engine=engine,
        extra_agents=extra,
        **optional,
    )
