"""Urban Sketchers compiled engine (``fast.py``) against the readable reference (``rules.py``,
``agents.py``): the same legal decisions in the same order, the same state after every decision,
the same greedy values, and whole games with the same decisions and the same outcome (scores,
components, tie-breaker, every metric and label) for random, greedy and mixed tables at 2, 3 and
4 players."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import us_reference as usref
from us_reference.agents import GreedyAgent, Weights, make, position_value
from us_reference.rules import P_MAIN, P_OVER, State, apply_move, legal_moves, new_state

from balancer.core.seeding import game_rngs, game_seed
from balancer.games import urban_sketchers as us
from balancer.games.urban_sketchers import fast

SEEDS = 100
TABLES = {
    2: (["random", "random"], ["greedy", "greedy"], ["greedy", "random"]),
    3: (["random"] * 3, ["greedy"] * 3, ["random", "greedy", "greedy"]),
    4: (["random"] * 4, ["greedy"] * 4, ["greedy", "random", "greedy", "random"]),
}


def reference_game(cfg, agents: list[str], seed) -> tuple[list[tuple[int, int, int, int]], object]:
    """The decisions and outcome of one game on the reference engine (us_reference.play_game_reference's loop)."""
    players = [make(cfg, a) for a in agents]
    state = usref.new_reference_game(cfg, len(agents), seed)
    _, agent_rng = game_rngs(seed)
    moves = []
    trail = []  # the trajectory: the points if the game ended now, at each round's end
    while state.phase != P_OVER:
        mv = players[state.seat].choose(state, state.seat, agent_rng)
        moves.append(tuple(int(x) for x in mv))
        before = state.round
        apply_move(state, mv)
        if state.round != before or state.phase == P_OVER:
            trail.append(usref.points_now(state))
    return moves, dataclasses.replace(usref.reference_outcome(state), standings=trail)


def fast_game(cfg, agents: list[str], seed) -> tuple[list[tuple[int, int, int, int]], object]:
    record = np.full((20_000, 4), -9, np.int64)
    out = us.play_game_fast(cfg, agents, seed, record)
    n = int(np.argmax(record[:, 0] == -9)) if (record[:, 0] == -9).any() else len(record)
    return [tuple(int(x) for x in row) for row in record[:n]], out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_fast_games_equal_reference_games(us_cfg, n):
    """Over 100 seeds per table, both engines make the same decisions and reach the same outcome
    (scores, components, tie-breaker, metrics, labels, turns)."""
    for agents in TABLES[n]:
        for i in range(SEEDS):
            seed = game_seed(20260, i)
            ref_moves, ref_out = reference_game(us_cfg, agents, seed)
            fast_moves, fast_out = fast_game(us_cfg, agents, seed)
            assert fast_moves == ref_moves, (agents, i)
            assert fast_out == ref_out, (agents, i)


def test_play_game_uses_the_fast_engine_and_agrees(us_cfg):
    """play_game (the runner's entry) gives the reference's outcome for a greedy table; a table
    with a seat the compiled engine does not play falls back to the reference."""
    seed = game_seed(7, 3)
    assert us.play_game(us_cfg, ["greedy"] * 3, seed) == usref.play_game_reference(us_cfg, ["greedy"] * 3, seed)
    with pytest.raises(ValueError, match="compiled engine"):
        us.play_game_fast(us_cfg, ["greedy", "rollout"], seed)
    with pytest.raises(ValueError):
        us.play_game(us_cfg, ["greedy", "nobody"], seed)


def _buffer_equals(buf: np.ndarray, s: State) -> None:
    """The compiled state, read back, has every field of the reference state."""
    back = usref.from_buffer(buf, s.rules)
    for name in State.__slots__:
        if name in ("rules", "rng"):
            continue
        assert getattr(back, name) == getattr(s, name), name


@pytest.mark.parametrize("n", [2, 4])
def test_step_by_step_same_moves_and_states(us_cfg, n):
    """Random games driven move by move: at every decision the compiled legal moves are the
    reference's (same order), and after applying one the two states are equal field by field
    (chance from two generators with the same seed)."""
    rules = us.compiled(us_cfg, n)
    lay, table, weights = us.fast_tables(us_cfg, n)
    ws = fast.workspace(lay)
    w = Weights(us_cfg)
    for i in range(3):
        ref_rng, fast_rng, pick = (np.random.default_rng(1000 + i) for _ in range(3))
        s = new_state(rules, ref_rng)
        fast_rng.bit_generator.state = ref_rng.bit_generator.state
        buf = usref.load(s)
        _buffer_equals(buf, s)
        while s.phase != P_OVER:
            moves = legal_moves(s)
            m = fast.legal_moves(buf, lay, table, ws.sub, ws.opts)
            assert [tuple(int(x) for x in row) for row in ws.sub[:m]] == moves
            for p in range(n):
                assert fast.position_value(buf, lay, table, weights, p) == position_value(s, p, w)
            mv = moves[int(pick.integers(len(moves)))]
            apply_move(s, mv)
            fast.apply_move(buf, lay, table, *mv, fast_rng, ws.opts)
            _buffer_equals(buf, s)
        assert fast.legal_moves(buf, lay, table, ws.sub, ws.opts) == 0


def test_greedy_decisions_equal_on_mid_game_positions(us_cfg):
    """The compiled greedy agent's decision at positions reached by random play equals the
    reference agent's, and both draw the same from their generators."""
    n = 3
    rules = us.compiled(us_cfg, n)
    lay, table, weights = us.fast_tables(us_cfg, n)
    ws = fast.workspace(lay)
    agent = GreedyAgent(us_cfg)
    s = new_state(rules, np.random.default_rng(5))
    pick = np.random.default_rng(6)
    checked = 0
    while s.phase != P_OVER and checked < 300:
        buf = usref.load(s)
        r1, r2 = np.random.default_rng(checked), np.random.default_rng(checked)
        ref = agent.choose(s.clone(), s.seat, r1)
        got = fast.choose(buf, lay, table, weights, 1, r2, ws)
        assert tuple(int(x) for x in got) == tuple(ref)
        assert r1.integers(1 << 30) == r2.integers(1 << 30), "the same draws"
        checked += 1
        moves = legal_moves(s)
        apply_move(s, moves[int(pick.integers(len(moves)))])
    assert checked > 100


def test_load_and_to_reference_round_trip(us_cfg):
    """A reference state copied into a buffer and back is the same state; the buffer's size is the
    layout's."""
    rules = us.compiled(us_cfg, 4)
    lay, _, _ = us.fast_tables(us_cfg, 4)
    s = new_state(rules, np.random.default_rng(9))
    buf = usref.load(s)
    assert buf.size == lay.size
    _buffer_equals(buf, s)


def test_efficient_options_match_the_reference():
    """The compiled Efficient options (code and reduced need, in order) are the reference's for every
    need up to 3 of each type and reductions 0-3."""
    from us_reference.rules import efficient_options

    opts = np.zeros((10, 5), np.int64)
    for need in np.ndindex(4, 4, 4, 4):
        for amount in range(4):
            m = fast.efficient_options(*need, amount, opts)
            got = [(int(o[0]), [int(x) for x in o[1:]]) for o in opts[:m]]
            assert got == efficient_options(list(need), amount), (need, amount)


@pytest.mark.parametrize("horizon,searches", [(2, 10_000), (0, 3)])
def test_rollout_playouts_on_the_compiled_engine_choose_as_the_reference(us_cfg, horizon, searches):
    """The rollout agent with its playouts on the compiled engine makes the decisions (and draws)
    of the same agent with reference playouts: a whole cheap two-player game with a 2-round horizon,
    and one with playouts to the end of the game up to the rollout seat's third choice of a die."""
    from us_reference.agents import RolloutAgent

    cheap = us_cfg.model_copy(
        update={
            "agents": us_cfg.agents.model_copy(
                update={
                    "rollout": us_cfg.agents.rollout.model_copy(
                        update={"playouts": 2, "candidates": 2, "horizon_rounds": horizon}
                    )
                }
            )
        }
    )
    games = []
    for compiled in (True, False):
        state = usref.new_reference_game(cheap, 2, 11)
        players = [RolloutAgent(cheap, compiled=compiled), GreedyAgent(cheap)]
        rng = np.random.default_rng(11)
        moves, searched = [], 0
        while state.phase != P_OVER and searched < searches:
            searched += state.seat == 0 and state.phase == P_MAIN
            mv = players[state.seat].choose(state, state.seat, rng)
            moves.append(mv)
            apply_move(state, mv)
        games.append((moves, int(rng.integers(1 << 30))))
    assert games[0] == games[1]
    assert len(games[0][0]) >= (100 if horizon else 20)


def _variant(cfg, section: str, **values):
    return cfg.model_copy(update={section: getattr(cfg, section).model_copy(update=values)})


def test_fast_games_equal_reference_games_in_other_variants(us_cfg):
    """Numbers the base variant does not exercise take the same paths in both engines: Efficient
    off 1 or 3 resources (one option instead of several), three sketchbooks, Funding counting
    everyone's publications, 0 or 1 bonus tile a sketchbook, fewer improvement slots and tiles, a
    travel board that is not a ring; and the other side of each assumed reading: start money,
    a streak tile without a card of its region, 5 money instead of 1 + 5 beyond six cards, the
    Prestige overflow once per advance, two cards to publish."""
    variants = [
        _variant(
            _variant(_variant(us_cfg, "setup", money=6), "bonus_tiles", streak_needs_card=False),
            "publish",
            beyond_six="instead",
            min_cards=2,
        ),
        _variant(
            _variant(
                us_cfg,
                "tracks",
                prestige_overflow_per="advance",
                prestige_points=[0, 1, 2, 3, 4],
                prestige_rewards={3: "improvement"},
            ),
            "publish",
            min_cards=2,
        ),
        _variant(_variant(us_cfg, "sketch", efficient_reduction=1, sketchbooks=3), "funding", count_published="all"),
        _variant(us_cfg, "sketch", efficient_reduction=3, max_bonus_tiles=1),
        _variant(_variant(us_cfg, "sketch", max_bonus_tiles=0), "improvements", slots=2, per_type=1),
        _variant(
            us_cfg,
            "travel_board",
            spaces=8,
            edges=[[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [0, 4], [2, 6]],
        ),
    ]
    for v in variants:
        for agents in (["random"] * 3, ["greedy"] * 4, ["greedy", "random"]):
            for i in range(4):
                seed = game_seed(99, i)
                assert us.play_game_fast(v, agents, seed) == usref.play_game_reference(v, agents, seed), (agents, i)


@pytest.mark.parametrize("level,tiles", [(1, 2), (2, 2 + 1)])
def test_blue_improvement_minimum_is_read_from_the_config(us_cfg, level, tiles):
    """Improvement Tiles, blue: a Sketch that places a card with no bonus icon earns at least
    ``sketch_bonus[0]`` bonus tiles (basic side), plus ``sketch_bonus[1]`` more on the advanced side.
    With sketch_bonus [2, 1]: basic max(0 icons, 2) = 2, advanced 2 + 1 = 3, in both engines."""
    import dataclasses

    from test_us_examples import BLUE, place, position, take_from_deck
    from us_reference.rules import IMP_SKETCH, K_END, K_SKETCH, P_RESOLVE, SKETCH

    v = _variant(us_cfg, "improvements", sketch_bonus=[2, 1])
    rules = us.compiled(v, 2)
    rules = dataclasses.replace(rules, cost=((0, 0, 0, 0),) + rules.cost[1:], bonus=(0,) + rules.bonus[1:])
    s = position(v, 2, rules)
    s.hand[0].append(take_from_deck(s, 0))
    s.imp[0][IMP_SKETCH] = level
    lay, table = fast.compile_fast(rules)
    ws = fast.workspace(lay)
    buf = usref.load(s)
    rng = np.random.default_rng(0)
    for mv in (place(BLUE, SKETCH), (K_SKETCH, 0, 0, -1), (K_END, 0, 0, 0)):
        assert mv in legal_moves(s)
        apply_move(s, mv)
        fast.apply_move(buf, lay, table, *mv, rng, ws.opts)
    assert s.phase == P_RESOLVE and s.p_bonus == tiles
    _buffer_equals(buf, s)
