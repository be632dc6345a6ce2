"""Urban Sketchers' readable reference engine, the tests' oracle; never imported by a run
(``tests/games/urban_sketchers/test_us_reference_is_test_only.py`` holds the package to it).

- :mod:`.rules`: the state as lists, the legal decisions and the transitions (the constants,
  ``Rules`` and ``compile_rules`` are the compiled engine's, re-exported);
- :mod:`.agents`: the reference ``random``, ``greedy`` and ``rollout`` agents, and
  :class:`~.agents.OnReference`, which seats one at the protocol;
- :mod:`.scoring`: final scoring and the tie-breaker over a reference state;
- :mod:`.describe`: a decision's transcript line over a reference state;
- :mod:`.bridge`: a reference state as a compiled state buffer and back;
- here: a reference game (:func:`new_reference_game`), its outcome (:func:`reference_outcome`) and
  whole games on the readable engine (:func:`play_game_reference`).

The compiled engine (``balancer/games/urban_sketchers/fast.py``, ``kernel.py``) plays the same games
decision for decision; the tests beside this package check it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from balancer.core.game import Outcome
from balancer.core.seeding import game_rngs
from balancer.games.urban_sketchers import kernel
from balancer.games.urban_sketchers.config import ACTIONS, COLOURS, UrbanSketchersConfig
from balancer.games.urban_sketchers.kernel import IMPROVEMENT_NAMES
from balancer.games.urban_sketchers.scoring import COMPONENTS

from .agents import make
from .bridge import from_buffer, load, to_reference
from .rules import P_OVER, State, apply_move, new_state
from .scoring import final_components, tiebreak

__all__ = [
    "from_buffer",
    "load",
    "to_reference",
    "new_reference_game",
    "reference_outcome",
    "play_game_reference",
    "points_now",
]


def new_reference_game(cfg: UrbanSketchersConfig, n_players: int, seed: np.random.SeedSequence | int) -> State:
    """A game after Set Up 1-10 on the reference engine (:func:`.rules.new_state`, the same draws as
    :func:`balancer.core.protocol.new_game`). ValueError for an unsupported player count."""
    rules = kernel.rules_for(cfg, n_players)
    game_rng, _ = game_rngs(seed)
    return new_state(rules, game_rng)


def reference_outcome(state: State) -> Outcome:
    """:func:`outcome` of a finished reference state (:func:`.scoring.final_components`, :func:`.scoring.tiebreak`)."""
    s = state
    n = s.rules.n
    comps = final_components(s)
    scores = [sum(v[p] for v in comps.values()) for p in range(n)]
    metrics: dict[str, list[float]] = {
        "game_rounds": [float(s.round + 1)] * n,
        "paid_players": [float(x) for x in s.st_paid_players],
        "paid_bank": [float(x) for x in s.st_paid_bank],
    }
    metrics["received_from_players"] = [float(x) for x in s.st_received]
    for a, name in enumerate(ACTIONS):
        metrics[f"actions_{name}"] = [float(s.st_actions[p][a]) for p in range(n)]
    for c, name in enumerate((*COLOURS, "white")):
        metrics[f"dice_{name}"] = [float(s.st_colours[p][c]) for p in range(n)]
    metrics["white_dice_on_actions"] = [float(x) for x in s.st_white]
    metrics["published"] = [float(x) for x in s.st_pub_count]
    metrics["mean_publish_size"] = [
        s.st_pub_sizes[p] / s.st_pub_count[p] if s.st_pub_count[p] else 0.0 for p in range(n)
    ]
    for t, name in enumerate(IMPROVEMENT_NAMES):
        metrics[f"improvement_{name}"] = [float(s.st_imp_taken[p][t]) for p in range(n)]
    metrics["prestige_overflow_money"] = [float(x) for x in s.st_prestige_money]
    return Outcome(
        scores=scores,
        tiebreak=tiebreak(s),
        components={k: comps[k] for k in COMPONENTS},
        metrics=metrics,
        turns=list(s.st_turns),
        ended_by="rules" if s.end_triggered else "turn_cap",  # else end.max_rounds, a safety cap
    )


def play_game_reference(cfg: UrbanSketchersConfig, agents: list[str], seed: np.random.SeedSequence | int) -> Outcome:
    """``play_game`` on the readable engine (``rules``, the reference agents of ``agents``,
    ``scoring``), whatever the agents: the oracle the compiled games are checked against. A reference
    state records no face-down cards after Set Up, so a ``rollout`` seat here determinizes less than
    through the protocol (:class:`~.agents.RolloutAgent`) and plays other games. Its ``standings``: the
    trajectory the compiled engine records (each seat's points if the game ended now, by the readable
    :func:`.scoring.final_components`, at the end of every round)."""
    players = [make(cfg, a) for a in agents]
    state = new_reference_game(cfg, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    trail: list[list[float]] = []  # the trajectory: each seat's points if it ended now, at each round's end
    while state.phase != P_OVER:
        seat, before = state.seat, state.round
        apply_move(state, players[seat].choose(state, seat, agent_rng))
        if state.round != before or state.phase == P_OVER:
            trail.append(points_now(state))
    return dataclasses.replace(reference_outcome(state), standings=trail)


def points_now(state: State) -> list[float]:
    """Each seat's points if the game ended now (:func:`.scoring.final_components`, summed): the
    standing of the trajectory at a round's end."""
    comps = final_components(state)
    return [float(sum(v[p] for v in comps.values())) for p in range(state.rules.n)]
