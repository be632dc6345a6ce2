"""Águeda agents: the greedy agent takes the turn its documented value ranks first on hand-set
positions, breaks exact ties at random, hands its planned turn out decision by decision exactly as
the fast path plays it, and every decision of every agent (and of the kernel's rollout policy) is one
of the interface's legal moves."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from agueda_turns import Turn

import balancer.games.agueda as ag
from balancer.core import protocol
from balancer.core.seeding import game_rngs, game_seed
from balancer.games.agueda.kernel import KERNEL, checkpoint_bound, last_turn, turn_count
from balancer.games.agueda.rules import ATTRACT_TWO

R, O, Y, G, B, P = range(6)


def agent_turn(game, agent, rng) -> Turn:
    """Let ``agent`` play one whole turn on ``game`` (each decision checked legal); the turn played."""
    start, seat = turn_count(game.S), game.seat_to_move
    while turn_count(game.S) == start and not protocol.is_over(game):
        move = agent.choose(game, seat, rng)
        assert protocol.is_legal_move(game, move), move
        protocol.apply(game, move)
    return Turn.from_array(last_turn(game.S))


def test_greedy_scores_the_big_row(ag_cfg):
    """Row 1 holds Y G G G Y G (6 of tile (Y, G)); any umbrella placed elsewhere and 2 tourists
    attracted to row 1 score 6, far above anything else on offer (at most 3 + 1 on a fresh row)."""
    game = ag.SPEC.new_game(ag_cfg, 2, 4)
    st = ag.game_state(game)
    st.board[0, 1, :6] = [Y, G, G, G, Y, G]
    st.fill[0, 1] = 6
    st.bag[Y] -= 2
    st.bag[G] -= 4
    turn = agent_turn(game, ag.make_agent(ag_cfg, "greedy"), np.random.default_rng(0))
    assert turn.tourist == ATTRACT_TWO and turn.tourist_row == 1
    assert st.stats[0, 0] >= 6


def test_greedy_breaks_exact_ties_at_random(ag_cfg):
    """With every tourist tile showing red/orange, the three empty rows of a fresh board are alike
    (same paintbrush spaces, same tile), so the greedy move's row varies with the rng."""
    cfg = ag_cfg.model_copy(update={"tourists": ag_cfg.tourists.model_copy(update={"tiles": [["red", "orange"]] * 3})})
    game = ag.SPEC.new_game(cfg, 2, 4)
    agent = ag.make_agent(cfg, "greedy")
    rows = Counter(agent_turn(game.copy(), agent, np.random.default_rng(i)).row for i in range(60))
    assert len(rows) == 3 and min(rows.values()) >= 8  # about 20 each


def test_lookahead_plays_legal_moves(ag_cfg):
    game = ag.SPEC.new_game(ag_cfg, 3, 8)
    _, rng = game_rngs(8)
    agent = ag.make_agent(ag_cfg, "lookahead")
    for _ in range(4):
        agent_turn(game, agent, rng)
    assert turn_count(game.S) == 4


def test_greedy_beats_random(ag_cfg):
    """Over 40 two-player games (seats alternating), greedy outscores random in most."""
    wins = 0
    for i in range(40):
        table = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        out = ag.play_game(ag_cfg, table, i)
        g = table.index("greedy")
        wins += out.scores[g] > out.scores[1 - g]
    assert wins >= 35


def step(cfg, agents, seed):
    """The game of ``agents`` stepped decision by decision through the Python protocol, every
    decision checked against the kernel's legal moves; its final buffer and Outcome."""
    game = ag.SPEC.new_game(cfg, len(agents), seed)
    _, rng = game_rngs(seed)
    players = [ag.make_agent(cfg, a) for a in agents]
    while not protocol.is_over(game):
        seat = game.seat_to_move
        move = players[seat].choose(game, seat, rng)
        assert move in protocol.legal_moves(game), (agents[seat], seed, move)
        protocol.apply(game, move)
    return game.S, protocol.outcome(game)


@pytest.mark.parametrize(
    "agents",
    [["greedy"] * 4, ["random", "greedy", "greedy"], ["greedy"], ["random", "random"], ["lookahead", "random"]],
)
def test_protocol_games_are_the_fast_paths(ag_cfg, agents):
    """The runner's compiled play_table (greedy and lookahead play a planned turn at once; random one
    draw per decision) and the protocol's agents (plans handed out decision by decision) play the
    same games: same final buffer, same Outcome."""
    seeds = range(2) if "lookahead" in agents else range(6)
    for i in seeds:
        seed = game_seed(31, i)
        T = ag.compiled(ag_cfg, len(agents))
        kinds = np.array([ag.AGENTS.index(a) for a in agents], np.int64)
        weights = np.tile(T.weights, (len(agents), 1))
        game_rng, agent_rng = game_rngs(seed)
        look = ag_cfg.agents.lookahead
        traj = np.zeros((checkpoint_bound(T.rules), len(agents)), np.int64)  # recording the trajectory
        S, _, _, _, _ = ag.play_table(
            T, kinds, weights, look.candidates, look.rollouts, game_rng, agent_rng, *ag.workspace(), traj
        )
        S2, out = step(ag_cfg, agents, seed)
        assert np.array_equal(S, S2), (agents, i)
        assert out == dataclasses.replace(ag.play_game(ag_cfg, agents, seed), standings=None)  # stepping records none


@pytest.mark.parametrize("n", [1, 2, 4])
def test_greedy_and_policy_decisions_are_legal_on_random_positions(ag_cfg, n):
    """The greedy search keeps its own pruned move generator: over many positions reached by random
    play (every phase of a turn), the greedy agent's decision and the kernel's rollout policy's
    decision are among the interface's legal moves."""
    T = ag.compiled(ag_cfg, n)
    out = np.zeros(T.max_moves, np.int64)
    checked = 0
    for seed in range(12):
        game = ag.SPEC.new_game(ag_cfg, n, seed)
        rng = np.random.default_rng(seed)
        uniform = ag.make_agent(ag_cfg, "random")
        while not protocol.is_over(game):
            legal = protocol.legal_moves(game)
            greedy = ag.make_agent(ag_cfg, "greedy")  # a fresh agent: plans from whatever is decided
            assert greedy.choose(game, game.seat_to_move, np.random.default_rng(checked)) in legal
            assert int(KERNEL.policy(game.S, T, out, np.random.default_rng(checked))) in legal
            checked += 1
            protocol.apply(game, uniform.choose(game, game.seat_to_move, rng))
    assert checked > 200 * n


def test_policy_is_the_greedy_turn(ag_cfg):
    """At a turn's first decision the rollout policy runs the greedy agent's own search: with the
    same generator it names the greedy agent's line."""
    for seed in range(10):
        game = ag.SPEC.new_game(ag_cfg, 3, seed)
        T = game.T
        line = ag.make_agent(ag_cfg, "greedy").choose(game, 0, np.random.default_rng(seed))
        out = np.zeros(T.max_moves, np.int64)
        assert KERNEL.policy(game.S, T, out, np.random.default_rng(seed)) == line
