"""``mcts`` at every game's table: the generic agent's registration (:data:`AGENT`, entry point
``mcts`` of the group ``balancer.agents`` in pyproject.toml; :mod:`balancer.core.generic_agents`).

The registry seats :data:`AGENT` (an :class:`MCTS`) in the spec of every game with a compiled interface
(``GameSpec.seated``), so that ``mcts`` and ``mcts@N`` sit at its tables wherever an agent name is
accepted (``run``, ``study``, ``compare``, ``check``, ``play``, Dask workers); the spec hands it what is
its own, and the game's functions are not wrapped:

- ``check_agent``: an MCTS name is checked here (:meth:`MCTS.check_name`: its budget, its value style);
- ``play_game``: a table with an MCTS seat plays in one compiled call
  (:func:`~balancer.agents.mcts.play_kernel_game`), every other table as the game always did;
- ``transcript``: such a table's account move by move (the interface's ``describe_move``);
- ``make_agent``: an :class:`~balancer.agents.mcts.MCTSAgent` for the Python protocol;
- ``check_table``: whether such a table can be compiled; ``play_chunk``, ``chunk_games``: the
  runner's defaults (one game at a time, 2,000-game chunks).

The MCTS parameters are ``agents.mcts`` of the game's YAML (:class:`~balancer.agents.params.MCTSParams`,
added to the game's config model by the registry). A game whose own agents should sit beside MCTS
seats gives two fields of its spec: ``seat_agent(cfg, name) -> (code, row) | None`` (its compiled
agent's code, ``>= GAME_AGENT``, and a float64 row of that agent's parameters, or None when ``name``
has no compiled form) and the dispatcher ``game_agent`` that plays them (contract in
:mod:`balancer.agents.mcts`); and, optionally, ``compile_table``, ``value_styles`` and ``style_note``
(:class:`~balancer.core.registry.GameSpec`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.game import Outcome
from ..core.generic_agents import GenericAgent
from ..core.kernel import ENDED_BY, ENDED_BY_TEXT
from ..core.registry import GameSpec, Seed
from ..core.seeding import game_rngs
from .mcts import MCTSAgent, TablePlan, no_game_agent, play_kernel_game, table_plan
from .params import (
    N_PARAMS,
    NAME_NOTE,
    MCTSParams,
    is_mcts_name,
    mcts_style,
    params_for_name,
    parse_mcts_name,
)

SeatAgent = Callable[[Any, str], "tuple[int, np.ndarray] | None"]
CompileTable = Callable[[Any, list], Any]


def has_mcts(agents: Sequence[str]) -> bool:
    """True when some seat of the table is an MCTS agent."""
    return any(is_mcts_name(a) for a in agents)


def mcts_params(cfg: Any) -> MCTSParams:
    """The variant's ``agents.mcts``."""
    return cfg.agents.mcts


def plan_table(spec: GameSpec, cfg: Any, agents: Sequence[str], seat_agent: SeatAgent | None) -> TablePlan:
    """The compiled table of ``agents`` (one per seat) under ``cfg``: MCTS seats with their
    parameters, ``random`` seats, and the game's own agents through ``seat_agent``. ValueError
    naming the agent when one has no compiled form."""
    codes: dict[str, int] = {}
    rows: dict[str, np.ndarray] = {}
    for name in agents:
        if is_mcts_name(name) or name == "random" or name in codes:
            continue
        hit = seat_agent(cfg, name) if seat_agent is not None else None
        if hit is None:
            raise ValueError(
                f"agent {name!r} cannot sit at the same {spec.display_name} table as an mcts seat yet "
                "(it has no compiled form); play it at tables without mcts"
            )
        codes[name], rows[name] = int(hit[0]), np.asarray(hit[1], np.float64)
    plan = table_plan(list(agents), mcts_params(cfg), game_agents=codes)
    if not rows:
        return plan
    # a game agent's row may be longer than the MCTS parameters: the table's rows widen to fit it
    # (the search reads only the first N_PARAMS columns of an MCTS seat's row)
    width = max(N_PARAMS, *(r.shape[0] for r in rows.values()))
    params = np.zeros((len(agents), width))
    params[:, :N_PARAMS] = plan.params
    for seat, name in enumerate(agents):
        if name in rows:
            params[seat, :] = 0.0
            params[seat, : rows[name].shape[0]] = rows[name]
    return dataclasses.replace(plan, params=params)


def table_of(spec: GameSpec, cfg: Any, agents: Sequence[str], compile_table: CompileTable | None) -> Any:
    """The rule table ``T`` of a table seating ``agents``: ``compile_table(cfg, agents)`` for a game
    whose agent names change the setup (e.g. Urgency's ``+deck``), else ``engine.compile``."""
    assert spec.engine is not None
    return compile_table(cfg, list(agents)) if compile_table is not None else spec.engine.compile(cfg, len(agents))


def play_mcts_table(
    spec: GameSpec,
    cfg: Any,
    agents: Sequence[str],
    seed: Seed,
    seat_agent: SeatAgent | None = None,
    game_agent: Any = None,
    compile_table: CompileTable | None = None,
    log_moves: int = 0,
    after_move: Callable[[np.ndarray, Any], None] | None = None,
) -> tuple[np.ndarray, Any, np.ndarray, int]:
    """One whole game of ``agents`` through the compiled interface: ``(S, T, log, decisions)``;
    ``after_move(S, T)`` is called after every move (:class:`Trajectory`)."""
    engine = spec.engine
    assert engine is not None
    T = table_of(spec, cfg, agents, compile_table)
    plan = plan_table(spec, cfg, agents, seat_agent)
    S, log, played = play_kernel_game(
        engine,
        T,
        plan,
        seed,
        game_agent=game_agent or no_game_agent,
        max_decisions=spec.max_protocol_moves,
        log_moves=log_moves,
        after_move=after_move,
    )
    return S, T, log, played


class Trajectory:
    """Records a game's trajectory as the generic loop plays it, through the game's kernel
    (``Engine.trajectory_buffer`` and ``Engine.record_checkpoint``: the function the game's own table
    loop records with), called after every move (``after_move``)."""

    def __init__(self, spec: GameSpec) -> None:
        assert spec.engine is not None and spec.engine.record_checkpoint is not None
        self._buffer_of = spec.engine.trajectory_buffer
        self._record = spec.engine.record_checkpoint
        self._traj: np.ndarray | None = None
        self.recorded = 0

    def __call__(self, S: np.ndarray, T: Any) -> None:
        if self._traj is None:
            assert self._buffer_of is not None
            self._traj = self._buffer_of(T)
        self.recorded = int(self._record(S, T, self._traj, self.recorded))

    def standings(self) -> list[list[float]]:
        """``Outcome.standings``: the checkpoints recorded, each seat's standing at each."""
        if self._traj is None:
            return []
        return self._traj[: self.recorded].astype(np.float64).tolist()


def kernel_transcript(
    spec: GameSpec,
    cfg: Any,
    agents: Sequence[str],
    seed: Seed,
    moves: np.ndarray,
    compile_table: CompileTable | None = None,
) -> str:
    """The account of a game given its decisions (``moves``): one line per decision, as the
    interface's ``describe_move`` reads it, then the final scores."""
    engine = spec.engine
    assert engine is not None
    T = table_of(spec, cfg, agents, compile_table)
    game_rng, _ = game_rngs(seed)
    S = engine.new_state(T, game_rng)
    lines = [
        f"{spec.display_name} {cfg.variant}, {len(agents)} player(s): "
        + ", ".join(f"seat {s + 1} {a}" for s, a in enumerate(agents))
    ]
    for m in moves:
        seat = int(engine.kernel.to_move(S, T))
        lines.append(f"seat {seat + 1} ({agents[seat]}): {engine.describe_move(S, T, int(m))}")
        engine.kernel.apply(S, T, np.int64(m), game_rng)
    outcome: Outcome = engine.outcome(S, T)
    lines.append("final scores: " + ", ".join(f"seat {s + 1} {float(v):g}" for s, v in enumerate(outcome.scores)))
    ended = ENDED_BY[int(engine.kernel.ended_by(S, T))]
    if ended != "rules":
        lines.append(f"ended by: {ended} (a safety stop, not the rules): {ENDED_BY_TEXT.get(ended, '')}")
    return "\n".join(lines)


def style_error(spec: GameSpec, name: str) -> str | None:
    """Why the value style of MCTS name ``name`` (``mcts+STYLE``) is not one ``spec``'s game gives, or None."""
    style = mcts_style(name)
    if style is None or style in spec.value_styles:
        return None
    if not spec.value_styles:
        return f"agent {name!r}: {spec.display_name}'s mcts has no value styles (mcts+{style}); use mcts or mcts@N"
    return f"agent {name!r}: unknown mcts value style {style!r}; {spec.display_name} has " + ", ".join(
        f"mcts+{s}" for s in spec.value_styles
    )


def check_styles(spec: GameSpec, agents: Sequence[str]) -> None:
    """ValueError for the first seat of ``agents`` whose value style ``spec``'s game does not give."""
    for name in agents:
        problem = style_error(spec, name)
        if problem:
            raise ValueError(problem)


class MCTS(GenericAgent[GameSpec]):
    """``mcts`` and ``mcts@N`` (``mcts+STYLE[@N]`` where the game gives value styles) at the tables of
    every game with a compiled interface (see the module). The registry keeps it in
    ``GameSpec.seated``; the spec hands it the names of its family and the tables with one of its seats."""

    name = "mcts"
    params_key = "mcts"
    params_model = MCTSParams

    def is_name(self, name: str) -> bool:
        return is_mcts_name(name)

    def claims(self, name: str) -> bool:
        return is_mcts_name(name, well_formed=False)

    def style(self, name: str) -> str | None:
        return mcts_style(name)

    def check_name(self, spec: GameSpec, name: str, cfg: Any = None) -> str | None:
        """A style the game does not give, or :func:`~.params.parse_mcts_name`'s one-line message."""
        problem = style_error(spec, name)
        if problem is not None:
            return problem
        try:
            parse_mcts_name(name)
        except ValueError as err:
            return str(err)
        return None

    def names(self, spec: GameSpec) -> str:
        styles = spec.value_styles
        return "mcts, mcts@N" + (f", mcts+STYLE[@N] ({', '.join(styles)})" if styles else "")

    def note(self, spec: GameSpec) -> str:
        return "; ".join(n for n in (NAME_NOTE, spec.style_note) if n)

    def check_table(self, spec: GameSpec, cfg: Any, agents: Sequence[str]) -> str | None:
        """Why the compiled table of ``agents`` cannot be built (a style the game lacks, a seat of the
        game's own with no compiled form), or None."""
        try:
            check_styles(spec, agents)
            table_of(spec, cfg, agents, spec.compile_table)
            plan_table(spec, cfg, agents, spec.seat_agent)
        except ValueError as exc:
            return str(exc)
        return None

    def play_game(self, spec: GameSpec, cfg: Any, agents: Sequence[str], seed: Seed) -> Outcome:
        """The table in one compiled call (:func:`~.mcts.play_kernel_game`)."""
        assert spec.engine is not None
        check_styles(spec, agents)
        recorder = Trajectory(spec) if spec.engine.record_checkpoint is not None else None
        S, T, _, _ = play_mcts_table(
            spec, cfg, agents, seed, spec.seat_agent, spec.game_agent, spec.compile_table, after_move=recorder
        )
        outcome = spec.engine.outcome(S, T)
        if recorder is None or not recorder.recorded:
            return outcome
        return dataclasses.replace(outcome, standings=recorder.standings())

    def transcript(self, spec: GameSpec, cfg: Any, agents: Sequence[str], seed: Seed) -> str:
        """The table's account move by move (the interface's ``describe_move``, :func:`kernel_transcript`)."""
        check_styles(spec, agents)
        _, _, log, played = play_mcts_table(
            spec,
            cfg,
            agents,
            seed,
            spec.seat_agent,
            spec.game_agent,
            spec.compile_table,
            log_moves=spec.max_protocol_moves,
        )
        return kernel_transcript(spec, cfg, agents, seed, log[:played], spec.compile_table)

    def make_agent(self, spec: GameSpec, cfg: Any, name: str) -> Any:
        """An :class:`~.mcts.MCTSAgent` for the Python protocol (not with a value style)."""
        assert spec.engine is not None
        params = params_for_name(name, mcts_params(cfg))
        assert params is not None
        if mcts_style(name) is not None:
            raise ValueError(
                f"agent {name!r}: a value style plays only at compiled tables (balancer run, study), not here"
            )
        return MCTSAgent(spec.engine, params=params, name=name)


AGENT = MCTS()
"""The registration of ``mcts`` (entry point ``mcts`` of the group ``balancer.agents``)."""
