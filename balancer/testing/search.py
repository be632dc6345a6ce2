"""``mcts`` at a game's tables (balancer/agents/tables.py), for a game that seats it.

The MCTS names pass the game's agent check and a malformed budget is refused; an all-``mcts`` table
and a table mixing ``mcts`` with each of the game's own agents play whole games through
``play_game`` (same seed, same outcome; every seat scored); the transcript of such a table replays
the same game; and the search cannot see hidden information: from two positions that the searching
seat cannot tell apart (one of them determinized for that seat), the same generator gives the same
search, visit for visit. Budgets are tiny (8 iterations): this checks the plumbing and the contracts,
not the strength. Each check takes a :class:`~.protocol.Game`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..agents.mcts import compiled_for, root_children, workspace_for
from ..agents.params import MCTSParams
from ..core.kernel import uniform_move
from ..core.seeding import game_rngs, game_seed
from .protocol import Game

BUDGET = "mcts@8"


def _count(cfg: Any) -> int:
    """The smallest player count of the config (the cheapest table)."""
    return min(cfg.player_counts)


def mcts_names_are_accepted_and_a_bad_budget_refused(game: Game) -> None:
    spec = game.spec
    cfg = game.cfg
    assert spec.check_agent("mcts", cfg) is None and spec.check_agent("mcts@250", cfg) is None
    refused = spec.check_agent("mcts@0", cfg)
    assert refused is not None and "budget" in refused
    assert "mcts" in spec.extra_agents and "mcts@N" in spec.agent_note
    assert isinstance(cfg.agents.mcts, MCTSParams), "the game's YAML needs agents.mcts"


def all_mcts_table_plays_deterministically(game: Game) -> None:
    spec = game.spec
    cfg = game.cfg
    table = [BUDGET] * _count(cfg)
    a = spec.play_game(cfg, table, game_seed(5, 0))
    b = spec.play_game(cfg, table, game_seed(5, 0))
    assert list(a.scores) == list(b.scores) and list(a.tiebreak) == list(b.tiebreak)
    assert len(a.scores) == len(table)


def mcts_sits_beside_each_of_the_games_agents(game: Game) -> None:
    # seat 1 mcts, seat 2 the game's agent (then the rest random): a whole game, whose transcript
    # ends on the same final scores
    spec = game.spec
    cfg = game.cfg
    n = max(2, _count(cfg))
    if n not in cfg.player_counts:
        return  # no 2-player table
    for agent in spec.agents:
        table = [BUDGET, agent] + ["random"] * (n - 2)
        assert spec.check_table(table, cfg) is None, agent
        out = spec.play_game(cfg, table, game_seed(11, 0))
        assert len(out.scores) == n, agent
        text = spec.transcript(cfg, table, game_seed(11, 0))
        scores = ", ".join(f"seat {s + 1} {float(v):g}" for s, v in enumerate(out.scores))
        assert text.rstrip().endswith(scores), (agent, text[-300:])


def search_cannot_see_what_the_seat_cannot(game: Game) -> None:
    # S after a few uniform moves; S2 = S determinized for the seat to move (same observation, hidden
    # parts resampled). A search from S and one from S2 with equal generators determinize their own
    # root at every iteration, and determinize depends only on what the seat sees (kernel
    # conformance), so the two trees are equal: same move, same visits per root child.
    spec = game.spec
    engine = spec.engine
    assert engine is not None, f"{spec.name} has no compiled interface"
    cfg = game.cfg
    n = _count(cfg)
    T = engine.compile(cfg, n)
    K = engine.kernel
    game_rng, agent_rng = game_rngs(game_seed(3, 0))
    S = engine.new_state(T, game_rng)
    out = np.zeros(max(1, engine.max_moves(T)), np.int64)
    for _ in range(7):
        if K.is_over(S, T):
            break
        K.apply(S, T, uniform_move(K, S, T, out, agent_rng), game_rng)
    assert not K.is_over(S, T)
    seat = int(K.to_move(S, T))
    S2 = S.copy()
    K.determinize(S2, T, seat, np.random.default_rng(99))
    assert np.array_equal(engine.observation(S, T, seat), engine.observation(S2, T, seat))
    row = MCTSParams(iterations=64).to_array()
    results = []
    for state in (S, S2):
        before = state.copy()
        ws = workspace_for(engine, T, state, 64)
        move = int(compiled_for(K).search(state, T, row, np.random.default_rng(7), ws))
        assert np.array_equal(state, before), "search changed the position it searched"
        results.append((move, sorted((int(m), int(v)) for m, v, _, _ in root_children(ws))))
    assert results[0] == results[1]
