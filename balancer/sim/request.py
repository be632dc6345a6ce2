"""Checking a run request before anything is played (:func:`check_run`), and what the game says of a
table (:func:`table_note`, :func:`table_chunk_games`).

Errors name the request's field (:class:`~balancer.sim.errors.RunRequestError`: ``agents``,
``players``, ``games``, ...); the command line shows the field as its option.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from typing import Any

from balancer.core.batch import DEFAULT_CHUNK_GAMES
from balancer.core.registry import GameSpec
from balancer.core.seeding import MAX_GAMES

from .errors import RunRequestError

MAX_SEED = 2**63 - 1


def parse_agents(spec: str | Sequence[str], n_players: int) -> list[str]:
    """Agents by seat for game 0 from ``"greedy"`` (every seat) or ``"greedy,random,..."`` (one per seat).

    Raises RunRequestError (``agents``) when the count is neither 1 nor ``n_players``, or a name is empty.
    """
    names = [a.strip() for a in spec.split(",")] if isinstance(spec, str) else [str(a).strip() for a in spec]
    if not names or any(not a for a in names):
        raise RunRequestError(
            "agents", f"empty agent name in {spec!r}; give one name, or one per seat separated by commas"
        )
    if len(names) == 1:
        return names * n_players
    if len(names) != n_players:
        raise RunRequestError(
            "agents",
            f"got {len(names)} agents ({', '.join(names)}) for {n_players} player{'s' if n_players != 1 else ''}; "
            f"give one name for every seat, or exactly {n_players} names",
        )
    return names


def supported_player_counts(cfg: Any) -> list[int] | None:
    """The config's ``player_counts`` (list of ints), or None when the game does not declare them."""
    counts = getattr(cfg, "player_counts", None)
    return list(counts) if counts is not None else None


def counts_text(counts: Sequence[int] | None) -> str:
    """[1, 2, 3, 4] -> '1-4'; [2, 4] -> '2, 4'; [3] -> '3'; None or [] -> 'any'."""
    counts = sorted(set(counts or []))
    if not counts:
        return "any"
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}"
    return ", ".join(map(str, counts))


def _check_table(spec: GameSpec, cfg: Any, agents: Sequence[str], source: str) -> None:
    """The agents and the player count of a request (:func:`check_run`'s first half)."""
    for name in dict.fromkeys(agents):
        problem = spec.check_agent(name, cfg)
        if problem:
            raise RunRequestError("agents", problem)
    problem = spec.check_table(list(agents), cfg) if agents else None
    if problem:
        raise RunRequestError("agents", problem)
    if not agents:
        raise RunRequestError("players", "at least one seat is needed")
    counts = supported_player_counts(cfg)
    if counts is not None and len(agents) not in counts:
        n = len(agents)
        raise RunRequestError(
            "players",
            f"{n} player{'s are' if n != 1 else ' is'} not supported by {source} (supported: {counts_text(counts)})",
        )


def _check_counts(games: int, seed: int, jobs: int, chunk_size: int | None) -> None:
    """The numbers of a request (:func:`check_run`'s second half)."""
    if games < 1:
        raise RunRequestError("games", f"must be at least 1, got {games}")
    if games > MAX_GAMES:
        raise RunRequestError("games", f"at most {MAX_GAMES:,} games in one run, got {games:,}")
    if not 0 <= seed <= MAX_SEED:
        raise RunRequestError("seed", f"must be between 0 and 2^63-1, got {seed}")
    if jobs == 0:
        raise RunRequestError("jobs", "must be a positive number of processes, or negative (-1 = all cores), got 0")
    cores = os.cpu_count() or 1
    if jobs < -cores:
        raise RunRequestError(
            "jobs",
            f"{jobs} means all cores but {-jobs - 1} (joblib's convention), and this "
            f"machine has {cores}; give -1 to {-cores}, or a positive number",
        )
    if chunk_size is not None and chunk_size < 1:
        raise RunRequestError("chunk_size", f"must be at least 1, got {chunk_size}")


def agent_problems(spec: GameSpec, agents: Sequence[str], cfgs: Sequence[Any]) -> list[tuple[int, str]]:
    """(index in ``agents``, problem) of every agent name the game does not accept under one of
    ``cfgs`` (``spec.check_agent``), each name once at its first index: what a file that lists the
    agents (a study's or a sweep's ``runs.<name>.agents``) names as ``agents[<i>]``. An unknown name
    close to a known one (:func:`difflib.get_close_matches`) is ``unknown agent 'gredy' (did you
    mean 'greedy'?)``; any other problem is the game's own sentence."""
    found = []
    for i, name in enumerate(agents):
        if name in agents[:i]:
            continue
        problem = next((p for cfg in cfgs if (p := spec.check_agent(name, cfg))), None)
        if problem is None:
            continue
        if problem.startswith(f"unknown agent {name!r}"):
            known = [*spec.agents, *spec.extra_agents, *spec.generic_agents]
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            if close:
                problem = f"unknown agent {name!r} (did you mean {close[0]!r}?)"
        found.append((i, problem))
    return found


def check_run(
    spec: GameSpec,
    cfg: Any,
    agents: Sequence[str],
    games: int,
    seed: int,
    jobs: int = -1,
    chunk_size: int | None = None,
    source: str = "this variant",
) -> None:
    """Raise RunRequestError (a ValueError naming the field at fault) if the run cannot be played
    as asked; play nothing.

    Checks: agents known to the game (``spec.check_agent(name, cfg)``, then the table as a whole,
    ``spec.check_table``; ``agents``), player count supported by the config (``cfg.player_counts``,
    if declared; ``players``, the message naming ``source``), ``games >= 1``,
    ``0 <= seed <= 2**63 - 1``, ``jobs != 0``, ``chunk_size >= 1``.
    """
    _check_table(spec, cfg, agents, source)
    _check_counts(games, seed, jobs, chunk_size)


def table_note(spec: GameSpec, cfg: Any, agents: Sequence[str]) -> str | None:
    """The game's own sentence about a table (``spec.table_note``, optional), e.g. an Urgency table
    that seats one deck twice, which the printed game cannot deal; None otherwise. ``run`` prints
    it, ``run.json`` keeps it as ``table_note`` and the report shows it."""
    return spec.table_note(cfg, list(agents)) if spec.table_note is not None else None


def table_chunk_games(spec: GameSpec, cfg: Any, agents: Sequence[str]) -> int:
    """The most games of a default chunk of this table: the game's ``chunk_games`` (a compiled
    table that plays tens of thousands of games a second takes larger chunks, so that writing
    and listing a chunk costs little beside playing it), else :data:`DEFAULT_CHUNK_GAMES`."""
    games = spec.chunk_games(cfg, list(agents))
    return DEFAULT_CHUNK_GAMES if games is None else max(10, int(games))
