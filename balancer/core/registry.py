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
import difflib
import functools
import importlib
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .batch import GameBatch
from .config import GameConfig
from .game import Outcome
from .generic_agents import GenericAgent, config_model_with, generic_agents, params_of
from .kernel import Engine
from .metrics import MetricSpecs
from .plugins import PluginImportError, is_outside, load_plugin, probe

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
    extra_agents: names accepted but too slow for the conformance suite (the seated generic agents'
    added by the registry); agent_note: one line on agent-name syntax for ``balancer games``.

    The game's own agents, as the game gives them (the ``own_`` fields; the methods of the same name
    without ``own_`` are what everyone calls: they hand a name or a table with a generic agent's seat
    to that agent, :attr:`seated`, and everything else to these):
    own_check_agent: ``(name, cfg) -> message | None``: why ``name`` cannot sit at a table of ``cfg``.
    own_play_game: ``(cfg, agents by seat, seed) -> Outcome``: one whole game at full speed.
    own_transcript: ``(cfg, agents, seed) -> str``: ``balancer play``'s account of one game.
    own_make_agent: ``(cfg, name) -> Agent`` for the Python protocol.
    own_play_chunk: ``(cfg, agents of game 0, run_seed, start, stop) -> GameBatch | None``: games
    ``start..stop-1`` of a run in one compiled call (:mod:`balancer.core.batch`); it (or the field)
    is None to play them one ``play_game`` at a time. Must give the same records as ``play_game``.
    It may take a keyword ``trajectories`` (default True): False (``run --no-flow``) lets it skip
    building ``GameBatch.standings``.
    own_chunk_games: ``(cfg, agents of game 0) -> int``: the most games a default chunk of this table
    holds (about a second of play: fast compiled tables take large chunks, so that writing a chunk
    costs little beside playing it), or None for the runner's default (2,000).
    own_check_table: ``(agents by seat, cfg) -> message | None``: why these agents cannot sit at one
    table (each name having passed ``check_agent``), or None for a game where any mix can.

    new_game, legal_moves, apply, is_over, outcome, is_legal_move: the Python protocol
    (core/game.py), derived from ``engine`` once a game has its compiled interface.
    engine: the compiled interface, or None for a game that does not provide one yet.
    max_protocol_moves: ``apply`` calls after which a game stepped through the protocol is said not
    to end (conformance).
    score_table_text: ``(cfg, text) -> {category: points}`` for ``balancer score``, or None.
    describe_config: ``cfg -> str``: a data summary ``balancer validate`` prints, or None.
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
    seated: the generic agents seated at this game's tables (set by the registry,
    :func:`with_generic_agents`).
    checkpoint: what one checkpoint of the game's trajectory ends (``GameBatch.standings``), in the
    rulebook's words, for labels: "round" (every seat has taken a turn) unless the game says otherwise
    (Citywright: "turn of the table"). ``run.json`` records it; the report's flow figures read it.
    source: the game's package directory (engine hash, numba cache upkeep).
    module: the import path of the package that defines it (worker processes re-import it).
    """

    name: str
    display_name: str
    config_model: type[GameConfig]
    default_config: str
    agents: tuple[str, ...]
    own_check_agent: Callable[[str, Any], str | None]
    own_play_game: Callable[[Any, Sequence[str], Seed], Outcome]
    own_transcript: Callable[[Any, Sequence[str], Seed], str]
    own_make_agent: Callable[[Any, str], Any]
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
    own_play_chunk: Callable[[Any, Sequence[str], int, int, int], GameBatch | None] | None = None
    own_chunk_games: Callable[[Any, Sequence[str]], int] | None = None
    own_check_table: Callable[[Sequence[str], Any], str | None] | None = None
    table_note: Callable[[Any, Sequence[str]], str | None] | None = None
    metrics: MetricSpecs | None = None
    seat_agent: Callable[[Any, str], tuple[int, np.ndarray] | None] | None = None
    game_agent: Any = None
    compile_table: Callable[[Any, list[str]], Any] | None = None
    value_styles: tuple[str, ...] = ()
    style_note: str = ""
    checkpoint: str = "round"
    seated: tuple[GenericAgent[Any], ...] = ()

    @property
    def generic_agents(self) -> tuple[str, ...]:
        """The names of the generic agents seated at this game's tables (:attr:`seated`)."""
        return tuple(agent.name for agent in self.seated)

    def generic_for(self, name: str) -> GenericAgent[Any] | None:
        """The seated generic agent whose family ``name`` belongs to (malformed names too), or None: the
        game's own agent names stay the game's, whatever a generic agent claims."""
        if name in self.agents or not self.seated:
            return None
        return next((agent for agent in self.seated if agent.claims(name)), None)

    def generic_at(self, agents: Sequence[str]) -> GenericAgent[Any] | None:
        """The seated generic agent that plays a table of ``agents``: the one of its first generic seat, or None."""
        return next((hit for hit in map(self.generic_for, agents) if hit is not None), None)

    def check_agent(self, name: str, cfg: Any = None) -> str | None:
        """None for an agent name this game can seat (under ``cfg``, when given), else the message:
        a generic agent's name checked by that agent, any other by the game
        (:attr:`own_check_agent`); an unknown name also lists the generic agents' names and the
        closest known name."""
        generic = self.generic_for(name)
        if generic is not None:
            return generic.check_name(self, name, cfg)
        problem = self.own_check_agent(name, cfg)
        if problem is None or not self.seated:
            return problem
        problem += "; and the generic agents: " + ", ".join(agent.names(self) for agent in self.seated)
        known = [*self.agents, *self.extra_agents]
        close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
        return problem + (f" (did you mean {close[0]!r}?)" if close and close[0] != name else "")

    def play_game(self, cfg: Any, agents: Sequence[str], seed: Seed) -> Outcome:
        """One whole game of ``agents`` (by seat) seeded ``seed``: by the generic agent of the table
        (:meth:`generic_at`) when it has one, else by the game (:attr:`own_play_game`)."""
        generic = self.generic_at(agents)
        if generic is not None:
            return generic.play_game(self, cfg, agents, seed)
        return self.own_play_game(cfg, agents, seed)

    def transcript(self, cfg: Any, agents: Sequence[str], seed: Seed) -> str:
        """``balancer play``'s account of the game :meth:`play_game` plays."""
        generic = self.generic_at(agents)
        if generic is not None:
            return generic.transcript(self, cfg, agents, seed)
        return self.own_transcript(cfg, agents, seed)

    def make_agent(self, cfg: Any, name: str) -> Any:
        """The agent called ``name`` for the Python protocol. ValueError for an unknown name."""
        generic = self.generic_for(name)
        if generic is not None:
            return generic.make_agent(self, cfg, name)
        return self.own_make_agent(cfg, name)

    def play_chunk(
        self, cfg: Any, agents: Sequence[str], run_seed: int, start: int, stop: int, trajectories: bool = True
    ) -> GameBatch | None:
        """Games ``start..stop-1`` of a run in one compiled call (:attr:`own_play_chunk`), or None to
        play them one :meth:`play_game` at a time (a game without a compiled chunk, a table with a
        generic agent's seat). Without ``trajectories`` the batch holds none (``run --no-flow``):
        the game's play_chunk is told so when it takes the keyword (and skips building them)."""
        if self.own_play_chunk is None or self.generic_at(agents) is not None:
            return None
        if trajectories:
            return self.own_play_chunk(cfg, agents, run_seed, start, stop)
        play: Any = self.own_play_chunk
        if _takes_keyword(play, "trajectories"):
            return play(cfg, agents, run_seed, start, stop, trajectories=False)  # type: ignore[no-any-return]
        batch = play(cfg, agents, run_seed, start, stop)
        return None if batch is None else dataclasses.replace(batch, standings=None, checkpoints=None)

    def chunk_games(self, cfg: Any, agents: Sequence[str]) -> int | None:
        """The most games a default chunk of this table holds (:attr:`own_chunk_games`), or None for
        the runner's default (a game that says nothing, a table with a generic agent's seat)."""
        if self.own_chunk_games is None or self.generic_at(agents) is not None:
            return None
        return self.own_chunk_games(cfg, agents)

    def check_table(self, agents: Sequence[str], cfg: Any) -> str | None:
        """None when ``agents`` (each name having passed :meth:`check_agent`) can sit at one table of
        ``cfg``, else why not: checked by the table's generic agent when it has one, else by the game."""
        generic = self.generic_at(agents)
        if generic is not None:
            others = {g.name for g in map(self.generic_for, agents) if g is not None} - {generic.name}
            if others:
                return f"{generic.name} and {', '.join(sorted(others))} cannot sit at one table"
            return generic.check_table(self, cfg, agents)
        return None if self.own_check_table is None else self.own_check_table(agents, cfg)


@functools.cache
def _takes_keyword(fn: Callable[..., Any], name: str) -> bool:
    """Whether ``fn`` accepts the keyword argument ``name`` (a game's optional keyword of a hook)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


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


def plugin_of(name: str) -> str | None:
    """The distribution (``balancer-pig 0.1.0``) whose entry point registers the game ``name`` when it
    is not balancer itself: a plugin, not one of the rulebooks balancer ships; None for balancer's own
    games and for a name not registered. Read from :data:`GAME_ORIGINS` (``... of <distribution>``);
    a game registered without an entry point (``GAMES[name] = "balancer_pig"``, as a test or a notebook
    does) whose module is not balancer's own is a plugin too: ``the package balancer_pig``."""
    head, sep, dist = GAME_ORIGINS.get(name, "").rpartition("' of ")
    if sep:
        return None if dist.startswith("balancer ") else dist
    module = GAMES.get(name)
    if isinstance(module, str) and module.split(".")[0] != "balancer":
        return f"the package {module.split('.')[0]}"
    return None


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
    game's package cannot be imported or its ``SPEC`` is not this game's GameSpec. Only this game's
    package is imported; another package's is first tried in a child process and then imported with
    its output discarded (:func:`~.plugins.load_plugin`): its ``SystemExit``, ``KeyboardInterrupt``,
    ``os._exit`` or a slow import is this error, not the end of the command."""
    try:
        path = GAMES[name]
    except KeyError:
        raise KeyError(unknown_game(name)) from None
    where = GAME_ORIGINS.get(name, f"package {path}")
    if not _MODULE_PATH.fullmatch(path):
        raise GameImportError(f"game {name!r}: {GAME_PROBLEMS.get(name, f'{path!r} is not a module path')}")
    if is_outside(path):  # every other package's game is tried at once, in child processes (the listing's wait)
        probe(p for p in GAMES.values() if is_outside(p) and _MODULE_PATH.fullmatch(p))
    try:  # another package's game is imported so that it cannot end or hang the command (core/plugins.py)
        load_plugin(path, functools.partial(importlib.import_module, path))
        spec = spec_at(path)
    except PluginImportError as exc:  # SystemExit, KeyboardInterrupt, os._exit, a slow import: said, not obeyed
        raise GameImportError(f"game {name!r} ({where}) failed to import: {exc}") from exc
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
    """``spec`` with every registered generic agent it does not seat yet
    (:func:`~.generic_agents.generic_agents`) seated: its config model holds their parameters
    (:func:`~.generic_agents.config_model_with`), :attr:`GameSpec.seated` holds them (the spec's
    methods hand their names and tables to them), their names join ``extra_agents`` and their notes
    ``agent_note``. A game without a compiled interface seats none. The same object for the same
    ``spec`` (one config model per game and process)."""
    hit = _SEATED.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1]
    agents = [a for a in generic_agents() if a.name not in spec.generic_agents] if spec.engine is not None else []
    seated = spec
    if agents:
        seated = dataclasses.replace(
            spec,
            config_model=config_model_with(spec.config_model, params_of(agents)),
            seated=(*spec.seated, *agents),
        )
        notes = [note for note in (spec.agent_note, *(a.note(seated) for a in agents)) if note]
        seated = dataclasses.replace(
            seated,
            extra_agents=tuple(dict.fromkeys((*spec.extra_agents, *(a.name for a in agents)))),
            agent_note="; ".join(notes),
        )
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
        own_check_agent=check_agent or known_agents_check(agents + extra),
        own_play_game=module.play_game,
        own_transcript=module.transcript,
        own_make_agent=module.make_agent,
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
        **{_OWN.get(key, key): value for key, value in optional.items()},
    )


_OWN = {"play_chunk": "own_play_chunk", "chunk_games": "own_chunk_games", "check_table": "own_check_table"}
"""``spec_from_module``'s keywords for the game's own chunk, chunk size and table check (``GameSpec.own_*``)."""
