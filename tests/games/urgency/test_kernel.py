"""Urgency's compiled interface (balancer/games/urgency/kernel.py) beyond the registry-wide conformance
suite: the move codes, determinize on hand-built positions (what a seat cannot see is dealt again,
everything else stays), the heuristic on a hand-scored position, and that the kernel plays the same
games as the compiled engine's fast paths (play_game) for greedy, random and mixed tables."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from balancer.config import load_config
from balancer.core import protocol
from balancer.core.kernel import policy_playout, uniform_move
from balancer.core.seeding import game_rngs, game_seed
from balancer.games import urgency
from balancer.games.urgency import kernel as k
from balancer.games.urgency.rules import (
    DECK,
    DISC,
    K_PILE,
    MOVE,
    NDISC,
    NEXTPILE,
    NQUEUE,
    NROS,
    OPTS,
    PICK,
    PILES,
    PS,
    QUEUE,
    QUSED,
    ROLL,
    ROS,
    TRIGGER,
    load_options,
    push_request,
    put_in_play,
)

from .test_rules import card, position, std  # noqa: F401  (std: a fixture)

ROOT = Path(__file__).resolve().parents[3]
VARIANTS = ("standard", "no-cards", "first-pile", "set-in-stone", "full-force")
CONFIGS = {v: load_config(ROOT / "configs" / "urgency" / f"{v}.yaml") for v in VARIANTS}


def ids(cfg, deck: str) -> list[int]:
    """Card ids of ``deck`` ("Ibex"), in deck order."""
    return [i for i, n in enumerate(urgency.card_names(cfg)) if n.startswith(deck + ":")]


def test_move_codes():
    """kind << 8 | arg: a token move's code is the tile it leaves; PICK 256 + card, ROLL 512,
    TRIGGER 768 + card."""
    assert [k.move_code(MOVE, t) for t in (0, 5, 14)] == [0, 5, 14]
    assert k.move_code(PICK, 12) == 268 and k.move_code(ROLL, 0) == 512 and k.move_code(TRIGGER, 40) == 808
    assert k.unpack(808) == (TRIGGER, 40) and k.unpack(5) == (MOVE, 5)


# ------------------------------------------------------------------------------------- determinize


def mid_game(cfg):
    """A hand-built standard position, seat 1 to move a token:
    seat 1 (index 0, Ibex): Rosette cards drawn Crown and Oracle, Crown kept; pile 1 chosen (Ibex 6 in
    play, Ibex 5 discarded), piles 2 and 3 = Ibex 1, 2 | Ibex 3, 4; the setup discard Ibex 0.
    seat 2 (index 1, Bull): drew Veil and Scarab, kept Scarab (in the second slot); all 3 piles face
    down (Bull 1-6), the setup discard Bull 0."""
    game = position(cfg, mine=[3], theirs=[6], roll=2)
    S, R = game.S, game.T.rules
    ibex, bull, ros = ids(cfg, "Ibex"), ids(cfg, "Bull"), ids(cfg, "Rosette")
    crown, oracle, veil, scarab = (card(cfg, f"Rosette: {n}") for n in ("Crown", "Oracle", "Veil", "Scarab"))
    for p, deck, drawn, kept in ((0, 1, (crown, oracle), crown), (1, 2, (veil, scarab), scarab)):
        b = p * PS
        S[b + DECK] = deck
        S[b + ROS : b + ROS + 2] = drawn
        S[b + NROS] = 2
        put_in_play(S, R, p, kept)
    put_in_play(S, R, 0, ibex[6])
    S[NEXTPILE] = 1
    S[PILES : PILES + 6] = [-1, -1, ibex[1], ibex[2], ibex[3], ibex[4]]
    S[DISC : DISC + 2] = [ibex[0], ibex[5]]
    S[NDISC] = 2
    S[PS + PILES : PS + PILES + 6] = bull[1:7]
    S[PS + DISC] = bull[0]
    S[PS + NDISC] = 1
    return game, ibex, bull, ros, (crown, oracle, veil, scarab)


def determinized(game, seat, seed):
    S = game.S.copy()
    k.determinize(S, game.T, seat, np.random.default_rng(seed))
    return S


def unchanged_outside(before, after, slots):
    keep = np.ones(before.shape[0], bool)
    keep[list(slots)] = False
    return np.array_equal(before[keep], after[keep])


def test_determinize_deals_unseen_piles_and_the_opponents_rosette_draw(std):  # noqa: F811
    """Seat 1's view: its own piles 2-3 are face-down (Ibex 1-4 in some order over the same 4 slots),
    seat 2's 3 piles too (Bull 1-6 over its 6 slots); seat 2's Rosette draw is its kept Scarab and
    one card seat 1 has not seen: not Crown or Oracle (its own draw), not Scarab, so one of Plague
    Amulet, Chariot, Veil, Tablet. Everything else (board, cards in play, both discard piles, seat
    1's own draw) is unchanged. Over 400 draws each card reaches each slot open to it."""
    game, ibex, bull, ros, (crown, oracle, veil, scarab) = mid_game(std)
    S = game.S
    own, theirs = range(PILES + 2, PILES + 6), range(PS + PILES, PS + PILES + 6)
    their_ros = (PS + ROS, PS + ROS + 1)
    seen_own = {j: set() for j in own}
    seen_theirs = {j: set() for j in theirs}
    second = set()
    for seed in range(400):
        D = determinized(game, 0, seed)
        assert unchanged_outside(S, D, [*own, *theirs, *their_ros])
        assert sorted(D[list(own)]) == sorted(ibex[1:5]) and sorted(D[list(theirs)]) == sorted(bull[1:7])
        assert D[PS + ROS] == scarab
        second.add(int(D[PS + ROS + 1]))
        for j in own:
            seen_own[j].add(int(D[j]))
        for j in theirs:
            seen_theirs[j].add(int(D[j]))
    assert second == set(ros) - {crown, oracle, scarab}
    assert veil in second
    assert all(v == set(ibex[1:5]) for v in seen_own.values())
    assert all(v == set(bull[1:7]) for v in seen_theirs.values())
    # seat 2's view: seat 1's draw is Crown (kept) and one of the cards seat 2 has not seen
    seconds = {int(determinized(game, 1, seed)[ROS + 1]) for seed in range(200)}
    assert seconds == set(ros) - {veil, scarab, crown}


def test_the_chooser_sees_its_pile_and_the_opponent_does_not(std):  # noqa: F811
    """Seat 2 chooses from its first pile (Bull 1, Bull 2). Seat 2 sees those two: they stay, and
    so do its offered cards; its piles 2-3 are dealt again. Seat 1 sees none of seat 2's piles: all
    six are dealt again, and the cards offered to seat 2 follow the new first pile."""
    game, ibex, bull, ros, _ = mid_game(std)
    S, R = game.S, game.T.rules
    push_request(S, 1, K_PILE, 0)
    load_options(S, R)
    assert game.seat_to_move == 1 and protocol.legal_moves(game) == [256 + bull[1], 256 + bull[2]]
    for seed in range(50):
        D = determinized(game, 1, seed)
        assert unchanged_outside(S, D, [*range(PS + PILES + 2, PS + PILES + 6), *range(PILES + 2, PILES + 6), ROS + 1])
        assert D[OPTS : OPTS + 2].tolist() == bull[1:3]
    offered = set()
    for seed in range(200):
        D = determinized(game, 0, seed)
        first = D[PS + PILES : PS + PILES + 2].tolist()
        pos = protocol.Position(urgency.ENGINE, std, game.T, D, game.rng)
        assert protocol.legal_moves(pos) == [256 + c for c in first]
        assert D[OPTS + 2 : OPTS + 8].tolist() == [0] * 6
        offered |= set(first)
    assert offered == set(bull[1:7])


def test_the_opponents_set_in_stone_order_is_hidden(std):  # noqa: F811
    """Set in stone: seat 2 queued Bull 1, 2, 3 and Bull 1 is in play. Seat 1 knows the two still to
    come (Bull 2 and 3) but not their order; seat 2 knows it: its view changes nothing."""
    game, ibex, bull, ros, _ = mid_game(std)
    S, R = game.S, game.T.rules
    S[PS + PILES : PS + PILES + 6] = -1
    S[PS + QUEUE : PS + QUEUE + 3] = bull[1:4]
    S[PS + NQUEUE], S[PS + QUSED] = 3, 1
    put_in_play(S, R, 1, bull[1])
    orders = set()
    for seed in range(60):
        D = determinized(game, 0, seed)
        assert unchanged_outside(
            S, D, [PS + QUEUE + 1, PS + QUEUE + 2, PS + ROS, PS + ROS + 1, *range(PILES + 2, PILES + 6)]
        )
        orders.add(tuple(D[PS + QUEUE : PS + QUEUE + 3]))
        D = determinized(game, 1, seed)
        assert D[PS + QUEUE : PS + QUEUE + 3].tolist() == bull[1:4]
    assert orders == {(bull[1], bull[2], bull[3]), (bull[1], bull[3], bull[2])}


def test_nothing_is_hidden_without_cards():
    """no-cards.yaml: dice are chance, never hidden; determinize leaves every position as it is."""
    cfg = CONFIGS["no-cards"]
    T = urgency.ENGINE.compile(cfg, 2)
    rng, agent = game_rngs(3)
    S = k.new_state(T, rng)
    out = np.zeros(k.MAX_MOVES, np.int64)
    while not k.is_over(S, T):
        for seat in (0, 1):
            D = S.copy()
            k.determinize(D, T, seat, np.random.default_rng(seat))
            assert np.array_equal(D, S)
            assert np.array_equal(k.observation(S, T, seat), S)
        k.apply(S, T, uniform_move(k.KERNEL, S, T, out, agent), rng)


# --------------------------------------------------------------------------------------- heuristic


def test_heuristic_on_a_hand_scored_position(std):  # noqa: F811
    """Seat 1 has scored 1 token (15 tiles) and has one on tile 5: progress 20; seat 2 has tokens on 6
    and 4: progress 10. Margin 10 tiles, scale 20: seat 1 1 / (1 + e^-0.5) = 0.6225, seat 2 0.3775."""
    game = position(std, mine=[5], theirs=[6, 4], scored=(1, 0))
    out = np.zeros(2)
    k.heuristic(game.S, game.T, out)
    assert std.agents.heuristic_scale == 20.0
    assert out[0] == pytest.approx(1 / (1 + math.exp(-0.5))) and out[1] == pytest.approx(1 - out[0])


# ----------------------------------------------------------------- the same games as the fast paths


def kernel_game(cfg, agents: list[str], seed) -> np.ndarray:
    """A game stepped through the kernel: ``greedy`` seats play ``policy`` (greedy is the policy),
    ``random`` seats ``uniform_move`` on the agents' stream, chance on the game's stream."""
    T = urgency.ENGINE.compile(cfg, 2)
    game_rng, agent_rng = game_rngs(seed)
    S = k.new_state(T, game_rng)
    out = np.zeros(k.MAX_MOVES, np.int64)
    while not k.is_over(S, T):
        seat = k.to_move(S, T)
        m = k.policy(S, T, out, agent_rng) if agents[seat] == "greedy" else uniform_move(k.KERNEL, S, T, out, agent_rng)
        k.apply(S, T, m, game_rng)
    return S


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_kernel_plays_play_games_games(variant):
    """Greedy mirror, random mirror and mixed tables: the kernel's games are play_game's (which runs
    the compiled engine's own loops, play_race_fast without cards), outcome for outcome."""
    cfg = CONFIGS[variant]
    T = urgency.ENGINE.compile(cfg, 2)
    for agents in (["greedy", "greedy"], ["random", "random"], ["random", "greedy"], ["greedy", "random"]):
        for i in range(12):
            seed = game_seed(21, i)
            assert urgency.ENGINE.outcome(kernel_game(cfg, agents, seed), T) == urgency.play_game(cfg, agents, seed), (
                agents,
                i,
            )


def test_policy_playout_is_the_greedy_mirror():
    """The compiled policy playout (core.kernel.policy_playout, chance and policy on one stream) from
    a new game is play_game's greedy mirror game with that seed: greedy draws nothing."""
    cfg = CONFIGS["standard"]
    T = urgency.ENGINE.compile(cfg, 2)
    for i in range(20):
        rng, _ = game_rngs(game_seed(4, i))
        S = k.new_state(T, rng)
        policy_playout(k.KERNEL, S, T, np.zeros(k.MAX_MOVES, np.int64), rng, 100_000)
        assert urgency.ENGINE.outcome(S, T) == urgency.play_game(cfg, ["greedy", "greedy"], game_seed(4, i))


@pytest.mark.parametrize("variant", ["standard", "full-force", "set-in-stone"])
def test_agents_choose_among_the_kernels_legal_moves(variant):
    """Over the positions of random games, every decision of greedy, expectimax and expectimax1 (which
    search with their own base-rules move generator, agents.base_move) is one of the kernel's legal
    moves, and the policy is greedy's decision."""
    cfg = CONFIGS[variant]
    players = {a: urgency.make_agent(cfg, a) for a in ("greedy", "expectimax", "expectimax1")}
    checked = 0
    for i in range(6):
        pos = urgency.new_game(cfg, 2, game_seed(8, i))
        _, rng = game_rngs(game_seed(8, i))
        out = np.zeros(k.MAX_MOVES, np.int64)
        while not protocol.is_over(pos):
            legal = protocol.legal_moves(pos)
            seat = pos.seat_to_move
            for name, agent in players.items():
                assert agent.choose(pos, seat, rng) in legal, (name, i)
            assert int(k.policy(pos.S, pos.T, out, rng)) == players["greedy"].choose(pos, seat, rng)
            checked += 1
            protocol.apply(pos, protocol.UniformAgent().choose(pos, seat, rng))
    assert checked > 500


def test_describe_move_uses_the_transcripts_words(std):  # noqa: F811
    game = position(std, mine=[5], roll=3)
    assert (
        urgency.ENGINE.describe_move(game.S, game.T, 5)
        == "seat 1: with the roll of 3, moves the token on tile 5 to tile 8"
    )
    pos = urgency.new_game(std, 2, 1)
    first = protocol.legal_moves(pos)[0]
    name = urgency.card_names(std)[first - 256]
    assert (
        urgency.ENGINE.describe_move(pos.S, pos.T, first)
        == f"seat 1: keeps the Rosette card {name} (the other Rosette card leaves the game)"
    )


# ------------------------------------------------------------------ the game's knowledge: move scores

from balancer.games.urgency.agents import move_rank  # noqa: E402


def test_move_rank_on_hand_set_moves():
    # Greedy's priority list (agents.py's module docstring) as one number, (6 - rule) * 64 + key,
    # board of the standard rules: centre tiles lo..hi = 5..12, rosettes 4, 8, 14, home at 15.
    ros = (1 << 4) | (1 << 8) | (1 << 14)
    lo, hi, safe = 5, 12, 1 << 8
    # token on 13 rolls 2: borne off (rule 0, key the tile left, 13): 6 * 64 + 13
    assert move_rank(13, 2, 0, lo, hi, safe, ros) == 6 * 64 + 13
    # token on 3 rolls 3 onto 6, an opponent there: a hit (rule 1, key the tile hit, 6): 5 * 64 + 6
    assert move_rank(3, 3, 1 << 6, lo, hi, safe, ros) == 5 * 64 + 6
    # token on 5 rolls 3 onto the safe central rosette 8 (rule 2, key 5): 4 * 64 + 5
    assert move_rank(5, 3, 0, lo, hi, safe, ros) == 4 * 64 + 5
    # token on 1 rolls 3 onto the private rosette 4, not safe-marked (rule 3, key 1): 3 * 64 + 1
    assert move_rank(1, 3, 0, lo, hi, safe, ros) == 3 * 64 + 1
    # token on 7 with an opponent on 5 (2 behind, can hit it), rolls 2 onto 9: fleeing
    # (rule 4, key 15 - 7 = 8): 2 * 64 + 8
    assert move_rank(7, 2, 1 << 5, lo, hi, safe, ros) == 2 * 64 + 8
    # a new token from 0 rolls 2 onto 2 (rule 5, key 0): 1 * 64; a plain move 9 -> 11 (rule 6, key 9): 9
    assert move_rank(0, 2, 0, lo, hi, safe, ros) == 64
    assert move_rank(9, 2, 0, lo, hi, safe, ros) == 9


@pytest.mark.parametrize("variant", ["standard", "no-cards"])
def test_greedy_plays_the_first_best_move_score(variant):
    """Along random games, at every decision, greedy's decision (its compiled game agent) is the first
    legal move with the largest move score: move_scores is greedy's own ranking (agents.greedy_scores,
    whose greedy_index and pick_card keep the first best), so greedy is argmax by construction."""
    cfg = CONFIGS[variant]
    T = urgency.ENGINE.compile(cfg, 2)
    out = np.zeros(k.MAX_MOVES, np.int64)
    moves = np.zeros(k.MAX_MOVES, np.int64)
    scores = np.zeros(k.MAX_MOVES)
    checked = 0
    for i in range(8):
        game_rng, agent_rng = game_rngs(game_seed(12, i))
        S = k.new_state(T, game_rng)
        while not k.is_over(S, T):
            n = k.legal(S, T, moves)
            k.move_scores(S, T, moves, n, scores)
            assert k.game_agent(k.GAME_AGENT + k.GREEDY, S, T, np.zeros(1), out, agent_rng) == 1
            assert out[0] == moves[int(np.argmax(scores[:n]))], (i, checked)
            checked += 1
            k.apply(S, T, uniform_move(k.KERNEL, S, T, out, agent_rng), game_rng)
    assert checked > 300
