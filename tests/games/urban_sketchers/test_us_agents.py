"""Urban Sketchers agents: names, determinism, legality of every decision, the greedy heuristic's
choices on hand-set positions, and the rollout agent on a cheap configuration."""

from __future__ import annotations

import numpy as np
import pytest
import us_reference as usref
from test_us_examples import place, position
from us_reference.agents import GreedyAgent, Weights, candidate_moves, position_value
from us_reference.rules import (
    K_END,
    K_PICK,
    K_PLACE,
    K_RESOURCE,
    K_STEP,
    P_OVER,
    SUPPLY,
    apply_move,
    legal_moves,
)

from balancer.core import protocol
from balancer.core.seeding import game_seed
from balancer.games import urban_sketchers as us


def test_agent_names(us_cfg):
    assert us.AGENTS == ("random", "greedy")
    assert us.check_agent("rollout") is None and us.check_agent("greedy") is None
    assert "unknown agent" in us.check_agent("nobody")
    with pytest.raises(ValueError):
        us.make_agent(us_cfg, "nobody")


def test_candidate_moves_keep_the_cheapest_die_per_action(us_cfg):
    """Greedy compares, per colour action, only the cheapest die: with the red die free for travel,
    no white die for travel is a candidate; for Supply, the die and space giving most resources."""
    s = position(us_cfg, 4)
    s.money[0] = 10
    cands = candidate_moves(s)
    travel = [m for m in cands if m[0] == K_PLACE and m[2] >> 3 == 0 and not m[3]]
    assert travel == [(K_PLACE, 0, 0, 0)]
    supply = [m for m in cands if m[0] == K_PLACE and m[2] >> 3 == SUPPLY]
    assert len(supply) == 1
    mv = supply[0]
    assert abs(s.dice[mv[1]] - s.sup_tile[mv[2] & 7]) == max(abs(v - t) for v in s.dice for t in s.sup_tile)
    assert set(cands) <= set(legal_moves(s))


def test_greedy_travel_walks_to_a_card_and_picks_it(us_cfg):
    """Greedy Travel: with an empty hand and money, it steps towards the nearest card and picks it."""
    s = position(us_cfg, 2)
    s.money[0] = 5
    apply_move(s, place(0, 0))
    agent = GreedyAgent(us_cfg)
    rng = np.random.default_rng(0)
    mv = agent.choose(s, 0, rng)
    assert mv == (K_PICK, 0, 0, 0), "a card lies on the traveller's own space"
    apply_move(s, mv)
    s.board[s.pos[0]] = -1
    mv = agent.choose(s, 0, rng)
    assert mv[0] in (K_STEP, K_PICK, K_END)


def test_greedy_supply_takes_what_the_hand_lacks(us_cfg):
    """Greedy Supply: the resource type the hand's cards need most."""
    s = position(us_cfg, 2)
    s.sup_tile[0] = 6
    s.hand[0] = [c for c in s.deck[:3]]
    for c in s.hand[0]:
        s.deck.remove(c)
    apply_move(s, place(1, SUPPLY, 0))  # the blue 1 under the 6: five resources
    totals = [sum(s.rules.cost[c][r] for c in s.hand[0]) for r in range(4)]
    mv = GreedyAgent(us_cfg).choose(s, 0, np.random.default_rng(0))
    assert mv[0] == K_RESOURCE and totals[mv[1]] == max(totals)


def test_position_value_counts_holdings(us_cfg):
    """position_value rises with money, resources and points (weights from the YAML)."""
    s = position(us_cfg, 2)
    w = Weights(us_cfg)
    v0 = position_value(s, 0, w)
    s.money[0] += 4
    assert position_value(s, 0, w) == pytest.approx(v0 + 4 * w.money)
    s.vp[0] += 3
    assert position_value(s, 0, w) == pytest.approx(v0 + 4 * w.money + 3)


def test_greedy_beats_random(us_cfg):
    """Greedy wins most 2-player games against random (a sanity check of the heuristic)."""
    wins = 0
    for i in range(10):
        agents = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        out = us.play_game(us_cfg, agents, game_seed(7, i))
        g = agents.index("greedy")
        wins += out.scores[g] > out.scores[1 - g]
    assert wins >= 8


def test_rollout_plays_a_legal_deterministic_game(us_cfg):
    """Rollout on a cheap configuration (1 playout, 2 candidates, 1 round on): every decision legal,
    the same seed twice the same game."""
    cheap = us_cfg.model_copy(
        update={
            "agents": us_cfg.agents.model_copy(
                update={
                    "rollout": us_cfg.agents.rollout.model_copy(
                        update={"playouts": 1, "candidates": 2, "horizon_rounds": 1}
                    )
                }
            )
        }
    )
    outs = []
    for _ in range(2):
        pos = us.SPEC.new_game(cheap, 2, 3)
        players = [us.make_agent(cheap, "rollout"), us.make_agent(cheap, "greedy")]
        rng = np.random.default_rng(3)
        while not protocol.is_over(pos):
            mv = players[pos.seat_to_move].choose(pos, pos.seat_to_move, rng)
            assert mv in protocol.legal_moves(pos)
            protocol.apply(pos, mv)
        outs.append(protocol.outcome(pos))
    assert outs[0] == outs[1]


def test_quick_value_equals_value_of_a_copy(us_cfg):
    """The greedy agent's copy-free value of Sketch and bonus-tile decisions equals position_value
    after applying the move to a copy, at every such decision of a few random games."""
    from us_reference.agents import quick_value
    from us_reference.rules import P_RESOLVE, P_SKETCH

    w = Weights(us_cfg)
    checked = 0
    for seed in range(4):
        s = usref.new_reference_game(us_cfg, 3, seed)
        rng = np.random.default_rng(seed)
        greedy = GreedyAgent(us_cfg)
        while s.phase != P_OVER:
            p = s.seat
            if s.phase in (P_SKETCH, P_RESOLVE):
                base = position_value(s, p, w)
                for mv in legal_moves(s):
                    v = quick_value(s, p, mv, w, base)
                    if v is None:
                        continue
                    c = s.clone(np.random.default_rng(0))
                    apply_move(c, mv)
                    assert v == pytest.approx(position_value(c, p, w), abs=1e-9), mv
                    checked += 1
            apply_move(s, greedy.choose(s, p, rng))
    assert checked > 100


def test_quick_value_draws_what_a_copy_draws(us_cfg):
    """For the decisions the greedy agent values without a copy since issue 8's speed work
    (theme-tile pairs during an action, Funding, improvements, unflips, extra themes), quick_value
    with a generator equals position_value after the move on a copy given an identical generator,
    and leaves that generator in the same state (the next round's dice, a bonus-bag reshuffle), so
    the agent's later random tie-breaks are unchanged. Random 4-player games reach round ends and
    an empty bonus bag often enough that some of the checked decisions do draw."""
    from us_reference.agents import quick_value
    from us_reference.rules import (
        K_EXTRA_THEME,
        K_FUND,
        K_IMPROVE,
        K_IMPROVE_MONEY,
        K_THEME_PAIR,
        K_UNFLIP,
        P_FUNDING,
        P_MAIN,
        P_RESOLVE,
        P_SKETCH,
    )

    kinds = {K_THEME_PAIR, K_FUND, K_IMPROVE, K_IMPROVE_MONEY, K_UNFLIP, K_EXTRA_THEME}
    w = Weights(us_cfg)
    checked = drew = 0
    for seed in range(6):
        s = usref.new_reference_game(us_cfg, 4, seed)
        rng = np.random.default_rng(seed)
        while s.phase != P_OVER:
            p = s.seat
            if s.phase in (P_SKETCH, P_FUNDING, P_RESOLVE):
                base = position_value(s, p, w)
                for i, mv in enumerate(legal_moves(s)):
                    if mv[0] not in kinds or (mv[0] == K_THEME_PAIR and s.phase == P_MAIN):
                        continue
                    quick_rng, copy_rng = np.random.default_rng([seed, i]), np.random.default_rng([seed, i])
                    start = quick_rng.bit_generator.state
                    v = quick_value(s, p, mv, w, base, quick_rng)
                    assert v is not None, mv
                    c = s.clone(copy_rng)
                    apply_move(c, mv)
                    assert v == pytest.approx(position_value(c, p, w), abs=1e-9), mv
                    assert quick_rng.bit_generator.state == copy_rng.bit_generator.state, mv
                    drew += quick_rng.bit_generator.state != start
                    checked += 1
            moves = legal_moves(s)
            apply_move(s, moves[int(rng.integers(len(moves)))])
    assert checked > 200 and drew > 5, (checked, drew)


def test_board_values_equal_card_value(us_cfg):
    """The table-driven board_values (the greedy Travel's hot path) gives exactly the floats of
    the readable card_value for every card on the board, for every seat, along a few random games
    (hands above and below the cap, sketchbooks with and without discounts)."""
    from us_reference.agents import board_values, card_value

    w = Weights(us_cfg)
    checked = 0
    for seed in range(3):
        s = usref.new_reference_game(us_cfg, 3, seed)
        rng = np.random.default_rng(seed)
        while s.phase != P_OVER:
            for p in range(3):
                for c, v in zip(s.board, board_values(s, p, w)):
                    assert (v is None) == (c < 0)
                    if c >= 0:
                        assert v == card_value(s, p, c, w)
                        checked += 1
            moves = legal_moves(s)
            apply_move(s, moves[int(rng.integers(len(moves)))])
    assert checked > 1000


def test_greedy_look_ahead_leaves_the_position_untouched(us_cfg):
    """The greedy look-ahead copies share the other seats' lists and write their statistics to
    shared scratch lists (State.clone with seat and stats=False): choosing a decision must leave
    every field of the real position as it was, at every decision of a few 4-player games."""
    import copy

    from us_reference.rules import State

    fields = [f for f in State.__slots__ if f not in ("rules", "rng")]
    greedy = GreedyAgent(us_cfg)
    for seed in range(2):
        s = usref.new_reference_game(us_cfg, 4, seed)
        rng = np.random.default_rng(seed)
        decisions = 0
        while s.phase != P_OVER:
            before = {f: copy.deepcopy(getattr(s, f)) for f in fields}
            mv = greedy.choose(s, s.seat, rng)
            assert {f: getattr(s, f) for f in fields} == before, mv
            apply_move(s, mv)
            decisions += 1
        assert decisions > 100


def test_travel_weights_come_from_the_config(us_cfg):
    """The greedy Travel's card values and its use of Wanderer read ``agents.greedy`` (card_bonus_icon,
    card_theme_icon, card_cost_share, wander_steps), in both engines.

    Card value by hand: with card_bonus_icon 2, card_theme_icon 1, card_cost_share 0.5 (resource
    0.4, hand_card 0.9), a card with a bonus icon, two theme icons and 3 resources to pay is worth
    0.9 + 2 + 2 x 1 - 0.5 x 0.4 x 3 = 4.3. Wanderer: the only card lies 2 spaces away; with
    wander_steps 3 (base) greedy steps towards it, with wander_steps 2 it flips Wanderer to it."""
    import dataclasses

    from test_us_examples import take_from_deck
    from us_reference.agents import card_value
    from us_reference.rules import K_WANDER

    from balancer.games.urban_sketchers import fast

    def greedy(**values):
        return us_cfg.model_copy(
            update={
                "agents": us_cfg.agents.model_copy(update={"greedy": us_cfg.agents.greedy.model_copy(update=values)})
            }
        )

    v = greedy(card_bonus_icon=2.0, card_theme_icon=1.0, card_cost_share=0.5)
    r = us.compiled(v, 2)
    rules = dataclasses.replace(
        r,
        cost=((3, 0, 0, 0), *r.cost[1:]),
        discount=(-1, *r.discount[1:]),
        bonus=(1, *r.bonus[1:]),
        themes=((0, 1), *r.themes[1:]),
    )
    s = position(v, 2, rules)
    assert card_value(s, 0, 0, Weights(v)) == pytest.approx(4.3)
    assert fast.fast_weights(v, rules).card_base[0] == pytest.approx(4.9), "before its cost"

    for cfg, expected in ((us_cfg, (K_STEP, 1, 0, 0)), (greedy(wander_steps=2), (K_WANDER, 2, 0, 0))):
        s = position(cfg, 2)
        s.money[0] = 5
        apply_move(s, place(0, 0))
        card = take_from_deck(s, 0)
        s.board = [-1] * len(s.board)
        s.board[2] = card
        assert s.pos[0] == 0 and s.opp[0][0] == 1, "seat 1 on space 1, Wanderer face up"
        assert GreedyAgent(cfg).choose(s, 0, np.random.default_rng(0)) == expected
        lay, table, weights = us.fast_tables(cfg, 2)
        got = fast.choose(usref.load(s), lay, table, weights, 1, np.random.default_rng(0), fast.workspace(lay))
        assert tuple(int(x) for x in got) == expected
