"""``mcts`` at every game's table: the generic agent's registration (:data:`AGENT`, entry point
``mcts`` of the group ``balancer.agents`` in pyproject.toml; :mod:`balancer.core.generic_agents`).

The registry extends the spec of every game with a compiled interface by :func:`with_mcts`, so that
``mcts`` and ``mcts@N`` sit at its tables wherever an agent name is accepted (``run``, ``study``,
``compare``, ``check``, ``play``, Dask workers):

- ``check_agent`` accepts the MCTS names (:func:`~balancer.agents.params.accept_mcts_names`);
- ``play_game`` plays a table with an MCTS seat in one compiled call
  (:func:`~balancer.agents.mcts.play_kernel_game`), every other table as the game always did;
- ``transcript`` gives such a table's account move by move (the interface's ``describe_move``);
- ``make_agent`` returns an :class:`~balancer.agents.mcts.MCTSAgent` for the Python protocol.

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
import difflib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.batch import DEFAULT_CHUNK_GAMES
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
    accept_mcts_names,
    is_mcts_name,
    mcts_style,
    params_for_name,
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
) -> tuple[np.ndarray, Any, np.ndarray, int]:
    """One whole game of ``agents`` through the compiled interface: ``(S, T, log, decisions)``."""
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
    )
    return S, T, log, played


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


def with_mcts(spec: GameSpec) -> GameSpec:
    """``spec`` with ``mcts``/``mcts@N`` seated wherever the game's agents are (see the module), its
    compiled tables built with the spec's ``seat_agent``, ``game_agent`` and ``compile_table``
    (``compile_table(cfg, agents) -> T``: the rule table of a table with MCTS seats, for a game whose
    agent names change the setup or the value a seat's search backs up; default
    ``engine.compile(cfg, len(agents))``). ``value_styles``: the value styles of ``mcts+STYLE[@N]``
    names the game's ``compile_table`` gives a seat (:func:`~.params.mcts_style`; none by default),
    with ``style_note`` (a line for ``balancer games``)."""
    if spec.engine is None:
        raise ValueError(f"{spec.name}: mcts needs the game's compiled interface (GameSpec.engine)")
    base_play, base_transcript, base_make, base_chunk = (
        spec.play_game,
        spec.transcript,
        spec.make_agent,
        spec.play_chunk,
    )
    engine = spec.engine
    base_check = accept_mcts_names(spec.check_agent)
    seat_agent, game_agent, compile_table = spec.seat_agent, spec.game_agent, spec.compile_table
    styles, style_note = spec.value_styles, spec.style_note

    def style_error(name: str) -> str | None:
        style = mcts_style(name)
        if style is None or style in styles:
            return None
        if not styles:
            return f"agent {name!r}: {spec.display_name}'s mcts has no value styles (mcts+{style}); use mcts or mcts@N"
        return f"agent {name!r}: unknown mcts value style {style!r}; {spec.display_name} has " + ", ".join(
            f"mcts+{s}" for s in styles
        )

    search_names = "mcts, mcts@N" + (f", mcts+STYLE[@N] ({', '.join(styles)})" if styles else "")

    def check_agent(name: str, cfg: Any = None) -> str | None:
        problem = style_error(name) or base_check(name, cfg)
        if problem is None or is_mcts_name(name, well_formed=False):
            return problem
        # an unknown name: the game's own list, then the search's names and the closest known name
        problem += f"; and the search: {search_names}"
        known = [*spec.agents, *spec.extra_agents, "mcts"]
        close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
        return problem + (f" (did you mean {close[0]!r}?)" if close and close[0] != name else "")

    def check_styles(agents: Sequence[str]) -> None:
        for name in agents:
            problem = style_error(name)
            if problem:
                raise ValueError(problem)

    def play_game(cfg: Any, agents: Sequence[str], seed: Seed) -> Outcome:
        if not has_mcts(agents):
            return base_play(cfg, agents, seed)
        check_styles(agents)
        S, T, _, _ = play_mcts_table(spec, cfg, agents, seed, seat_agent, game_agent, compile_table)
        return engine.outcome(S, T)

    def transcript(cfg: Any, agents: Sequence[str], seed: Seed) -> str:
        if not has_mcts(agents):
            return base_transcript(cfg, agents, seed)
        check_styles(agents)
        _, _, log, played = play_mcts_table(
            spec, cfg, agents, seed, seat_agent, game_agent, compile_table, log_moves=spec.max_protocol_moves
        )
        return kernel_transcript(spec, cfg, agents, seed, log[:played], compile_table)

    def make_agent(cfg: Any, name: str) -> Any:
        params = params_for_name(name, mcts_params(cfg))
        if params is None:
            return base_make(cfg, name)
        if mcts_style(name) is not None:
            raise ValueError(
                f"agent {name!r}: a value style plays only at compiled tables (balancer run, study), not here"
            )
        return MCTSAgent(engine, params=params, name=name)

    chunk_games = None
    if spec.chunk_games is not None:
        base_chunk_games = spec.chunk_games

        def chunk_games(cfg: Any, agents: Sequence[str]) -> int:
            return DEFAULT_CHUNK_GAMES if has_mcts(agents) else base_chunk_games(cfg, agents)  # MCTS: the default

    play_chunk = None
    if base_chunk is not None:

        def play_chunk(cfg: Any, agents: Sequence[str], run_seed: int, start: int, stop: int):  # noqa: F811
            return None if has_mcts(agents) else base_chunk(cfg, agents, run_seed, start, stop)

    def check_table(agents: Sequence[str], cfg: Any) -> str | None:
        if not has_mcts(agents):
            return None if spec.check_table is None else spec.check_table(agents, cfg)
        try:
            check_styles(agents)
            table_of(spec, cfg, agents, compile_table)
            plan_table(spec, cfg, agents, seat_agent)
        except ValueError as exc:
            return str(exc)
        return None

    note = "; ".join(n for n in (spec.agent_note, NAME_NOTE, style_note) if n)
    return dataclasses.replace(
        spec,
        check_agent=check_agent,
        play_game=play_game,
        transcript=transcript,
        make_agent=make_agent,
        play_chunk=play_chunk,
        chunk_games=chunk_games,
        check_table=check_table,
        extra_agents=tuple(dict.fromkeys((*spec.extra_agents, "mcts"))),
        agent_note=note,
    )


AGENT = GenericAgent[GameSpec](
    name="mcts",
    is_name=is_mcts_name,
    extend=with_mcts,
    params_key="mcts",
    params_model=MCTSParams,
    style=mcts_style,
)
"""The registration of ``mcts`` (entry point ``mcts`` of the group ``balancer.agents``)."""
