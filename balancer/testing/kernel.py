"""Conformance of a game's compiled interface (balancer/core/kernel.py): the contract listed there.

Same seed, same game; a copy is independent of its original; legal moves are never empty before the
end, are distinct, and every one applies; the seat to move is a seat; returns are win shares at the
end and agree with the Outcome's ranks; the heuristic stays in [0, 1]; determinize keeps what the seat
sees and depends on nothing else; move scores are finite and change nothing; the interface's random games equal the Python protocol's, move for
move. (PettingZoo's ``api_test``/``seed_test``, TAG's ``ForwardModelTester``.) Each check takes a
:class:`~.protocol.Game` whose spec has an ``engine``, and a player count.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import protocol
from ..core.batch import ranks_and_shares
from ..core.game import ranks_and_win_shares
from ..core.kernel import ENDED_BY, RULES, Engine, random_playout
from ..core.seeding import game_rngs, game_seed
from .protocol import Game

SEEDS = (1, 2)
MAX_DECISIONS = 200_000


def setup(game: Game, n: int) -> tuple[Engine, Any, Any]:
    """(engine, config, rule table T) of ``game`` at ``n`` players."""
    engine = game.spec.engine
    assert engine is not None, f"{game.spec.name} has no compiled interface"
    return engine, game.cfg, engine.compile(game.cfg, n)


def legal(engine: Engine, S: np.ndarray, T: Any) -> np.ndarray:
    out = np.zeros(max(1, engine.max_moves(T)), np.int64)
    k = int(engine.kernel.legal(S, T, out))
    assert 0 <= k <= out.shape[0], f"legal() returned {k} for a buffer of {out.shape[0]}"
    return out[:k].copy()


def random_game(engine: Engine, T: Any, seed: int, check: bool = False) -> tuple[list[int], list[np.ndarray]]:
    """Moves and states (before each move, then the final one) of a uniformly random game, stepped
    from Python through the kernel; with ``check``, every contract on the way is asserted."""
    K = engine.kernel
    game_rng, agent_rng = game_rngs(game_seed(seed, 0))
    S = engine.new_state(T, game_rng)
    assert S.dtype == np.int64 and S.ndim == 1 and S.flags.c_contiguous, "S must be one C-contiguous int64 array"
    n = engine.n_players(T)
    moves: list[int] = []
    states: list[np.ndarray] = []
    values = np.zeros(n)
    while not K.is_over(S, T):
        assert len(moves) < MAX_DECISIONS, f"no end after {MAX_DECISIONS} decisions"
        ms = legal(engine, S, T)
        states.append(S.copy())
        if check:
            assert ms.shape[0] > 0, f"no legal move before the end (after {len(moves)} decisions)"
            assert len(set(ms.tolist())) == ms.shape[0], "legal() listed a move twice"
            assert 0 <= K.to_move(S, T) < n, "to_move() is not a seat"
            K.heuristic(S, T, values)
            assert np.all((values >= 0) & (values <= 1)), f"heuristic outside [0, 1]: {values}"
        m = ms[min(int(agent_rng.random() * ms.shape[0]), ms.shape[0] - 1)]
        moves.append(int(m))
        K.apply(S, T, m, game_rng)
    states.append(S.copy())
    return moves, states


def same_seed_same_game(game: Game, n: int) -> None:
    engine, _, T = setup(game, n)
    for seed in SEEDS:
        a, sa = random_game(engine, T, seed, check=True)
        b, sb = random_game(engine, T, seed)
        assert a == b and all(np.array_equal(x, y) for x, y in zip(sa, sb)), f"seed {seed} gave two different games"
    assert random_game(engine, T, 1)[0] != random_game(engine, T, 2)[0], "seeds 1 and 2 gave the same game"


def every_legal_move_applies_and_copies_do_not_leak(game: Game, n: int) -> None:
    engine, _, T = setup(game, n)
    K = engine.kernel
    _, states = random_game(engine, T, 3)
    probe = np.random.default_rng(0)
    # every legal move of a sample of positions applies to a copy, and the original is untouched
    for S in states[:: max(1, len(states) // 25)]:
        if K.is_over(S, T):
            assert legal(engine, S, T).shape[0] == 0, "legal moves after the end"
            continue
        before = S.copy()
        ms = legal(engine, S, T)
        for m in ms[:: max(1, ms.shape[0] // 40)]:
            child = S.copy()
            K.apply(child, T, m, probe)
            assert np.array_equal(S, before), "applying a move to a copy changed the original"
            assert K.is_over(child, T) or legal(engine, child, T).shape[0] > 0
        # and the copy is independent the other way round: changing the original leaves a copy alone
        copy = S.copy()
        K.apply(S, T, ms[0], probe)
        assert np.array_equal(copy, before), "a copy changed when its original was played on"


def move_scores_are_finite_and_change_nothing(game: Game, n: int) -> None:
    """``move_scores`` gives a finite score to every legal move of a sample of positions, the same
    twice (no generator), and leaves the position and the move list as they were."""
    engine, _, T = setup(game, n)
    K = engine.kernel
    _, states = random_game(engine, T, 4)
    for S in states[:: max(1, len(states) // 25)]:
        if K.is_over(S, T):
            continue
        before = S.copy()
        ms = legal(engine, S, T)
        moves = np.zeros(max(1, engine.max_moves(T)), np.int64)
        moves[: ms.shape[0]] = ms
        listed = moves.copy()
        first = np.full(moves.shape[0], np.nan)
        second = np.full(moves.shape[0], np.nan)
        K.move_scores(S, T, moves, ms.shape[0], first)
        K.move_scores(S, T, moves, ms.shape[0], second)
        assert np.array_equal(S, before), "move_scores changed the position"
        assert np.array_equal(moves, listed), "move_scores changed the move list"
        assert np.all(np.isfinite(first[: ms.shape[0]])), f"move_scores not finite: {first[: ms.shape[0]]}"
        assert np.array_equal(first[: ms.shape[0]], second[: ms.shape[0]]), "move_scores differ between two calls"


def returns_are_win_shares_agreeing_with_the_outcome(game: Game, n: int) -> None:
    engine, _, T = setup(game, n)
    K = engine.kernel
    for seed in SEEDS:
        _, states = random_game(engine, T, seed)
        S = states[-1]
        values, heur, scores = np.zeros(n), np.zeros(n), np.zeros(n, np.int64)
        K.returns(S, T, values)
        K.heuristic(S, T, heur)
        K.scores(S, T, scores)
        assert np.all((values >= 0) & (values <= 1)), f"returns outside [0, 1]: {values}"
        assert np.allclose(heur, values), f"heuristic {heur} differs from returns {values} at the end"
        out = engine.outcome(S, T)
        assert scores.tolist() == [int(s) for s in out.scores], "scores() and outcome().scores differ at the end"
        if n > 1:
            _, shares = ranks_and_win_shares(out.scores, out.tiebreak)
            assert np.allclose(values, shares), f"returns {values} are not the win shares {shares}"
            assert math.isclose(values.sum(), 1.0, rel_tol=1e-6, abs_tol=1e-12)
        code = int(K.ended_by(S, T))
        assert 0 <= code < len(ENDED_BY), f"ended_by() returned {code}"
        assert out.ended_by == ENDED_BY[code], "outcome().ended_by and ended_by() differ"


def a_game_ended_by_the_rules_is_recorded_so(game: Game, n: int) -> None:
    """Random games of the default config, which end by the rules (none of these seeds reaches a
    safety stop: each game below ends long before one), are recorded as ended by the rules, in the
    kernel (``ended_by``), the Outcome and the runner's chunk; their win shares sum to 1."""
    spec = game.spec
    engine, cfg, T = setup(game, n)
    K = engine.kernel
    for seed in SEEDS:
        _, states = random_game(engine, T, seed)
        S = states[-1]
        assert int(K.ended_by(S, T)) == RULES, f"seed {seed}: a random game not recorded as ended by the rules"
        assert engine.outcome(S, T).ended_by == "rules"
    if spec.own_play_chunk is not None:
        agents = [spec.agents[s % len(spec.agents)] for s in range(n)]
        batch = spec.play_chunk(cfg, agents, 5, 0, 4)
        if batch is not None:
            codes = np.zeros(batch.games, np.int64) if batch.ended_by is None else batch.ended_by
            assert codes.tolist() == [RULES] * batch.games
            _, shares = ranks_and_shares(batch.scores, batch.tiebreak)
            assert np.allclose(shares.sum(axis=1), 1.0)


def determinize_keeps_what_the_seat_sees_and_nothing_else(game: Game, n: int) -> None:
    engine, _, T = setup(game, n)
    K = engine.kernel
    _, states = random_game(engine, T, 4)
    for S in states[:: max(1, len(states) // 12)]:
        for seat in range(n):
            seen = engine.observation(S, T, seat)
            other = S.copy()
            K.determinize(other, T, seat, np.random.default_rng(99))
            assert np.array_equal(engine.observation(other, T, seat), seen), (
                f"determinize changed what seat {seat + 1} can see"
            )
            # two states this seat cannot tell apart become the same state for the same generator
            a, b = S.copy(), other.copy()
            K.determinize(a, T, seat, np.random.default_rng(7))
            K.determinize(b, T, seat, np.random.default_rng(7))
            assert np.array_equal(a, b), f"determinize for seat {seat + 1} depends on what that seat cannot see"


def interface_random_games_equal_the_python_protocols(game: Game, n: int) -> None:
    """The compiled uniform playout and the Python protocol's random agent draw the same moves from
    the same streams, so they play the same game."""
    engine, cfg, T = setup(game, n)
    K = engine.kernel
    for seed in SEEDS:
        game_rng, agent_rng = game_rngs(game_seed(seed, 0))
        S = engine.new_state(T, game_rng)
        # random_playout draws chance and choices from one generator: give both the same one here
        # by stepping the protocol with a single shared stream too
        shared = np.random.default_rng(seed)
        compiled = S.copy()
        random_playout(K, compiled, T, np.zeros(max(1, engine.max_moves(T)), np.int64), shared, MAX_DECISIONS)
        pos = protocol.Position(engine, cfg, T, S.copy(), np.random.default_rng(seed))
        agent = protocol.UniformAgent()
        steps = 0
        while not protocol.is_over(pos):
            protocol.apply(pos, agent.choose(pos, pos.seat_to_move, pos.rng))
            steps += 1
            assert steps < MAX_DECISIONS
        assert np.array_equal(pos.S, compiled), f"seed {seed}: the protocol's random game differs from the kernel's"
        assert protocol.outcome(pos) == engine.outcome(compiled, T)


def python_protocol_is_derived_from_the_interface(game: Game, n: int) -> None:
    """The spec's protocol plays the kernel's moves: legal_moves equals the kernel's list."""
    spec = game.spec
    engine, cfg, T = setup(game, n)
    pos = spec.new_game(cfg, n, game_seed(5, 0))
    S = getattr(pos, "S", None)
    assert isinstance(S, np.ndarray), "the protocol's state should carry the kernel's buffer S"
    assert list(spec.legal_moves(pos)) == legal(engine, S, T).tolist()
