"""Urban Sketchers' compiled interface (``kernel.py``) against the readable reference: the compiled
Set Up and final scoring equal the reference's on many seeds and positions; move codes round-trip;
the game agents only pick the interface's legal moves; the protocol's games equal the reference's;
determinize on hand-built positions resamples exactly the hidden cards and tiles. (The generic
contract is tests/test_kernel_conformance.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest
import us_reference as usref
from test_us_examples import final_scoring_position, place, position
from us_reference.rules import (
    K_END,
    K_PICK,
    K_SKETCH,
    P_MAIN,
    P_OVER,
    P_SETUP,
    SKETCH,
    TRAVEL,
    State,
    apply_move,
    legal_moves,
    new_state,
)
from us_reference.scoring import final_components, tiebreak

from balancer.core import protocol
from balancer.core.seeding import game_rngs, game_seed
from balancer.games import urban_sketchers as us
from balancer.games.urban_sketchers import fast, kernel

FIELDS = [f for f in State.__slots__ if f not in ("rules", "rng")]


def same_state(buf: np.ndarray, T, s: State) -> None:
    """The compiled state read back has every field of the reference state."""
    back = usref.to_reference(buf, T)
    for name in FIELDS:
        assert getattr(back, name) == getattr(s, name), name


def load(T, s: State) -> np.ndarray:
    """A reference state as a kernel state buffer."""
    return usref.load(s)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_compiled_setup_equals_the_reference(us_cfg, n):
    """Set Up 1-10 in numba (kernel.new_state) is the reference's rules.new_state, field by field,
    with the same draws (the generators end in the same state), on 200 seeds; every dealt card
    starts face down and the deck has not been rebuilt."""
    T = kernel.compile(us_cfg, n)
    rules = us.compiled(us_cfg, n)
    L = T.L
    for i in range(200):
        a, b = np.random.default_rng(i), np.random.default_rng(i)
        S = kernel.new_state(T, a)
        s = new_state(rules, b)
        same_state(S, T, s)
        assert a.bit_generator.state == b.bit_generator.state
        assert S[L.o_secret : L.o_secret + n].tolist() == [rules.hand] * n and S[fast.G_DECK_SEEN] == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_compiled_scoring_equals_the_reference(us_cfg, n):
    """Final scoring in numba (components and the theme-tile tie-breaker) equals scoring.py at
    every 7th decision of random games and at their ends (mid-game it is the score if the game
    ended now: unpublished sketchbooks, money and resources counted)."""
    T = kernel.compile(us_cfg, n)
    comps = np.zeros((5, n), np.int64)
    checked = 0
    for seed in range(6):
        pos = us.SPEC.new_game(us_cfg, n, seed)
        agent, rng = protocol.UniformAgent(), np.random.default_rng(seed)
        step = 0
        while True:
            if step % 7 == 0 or protocol.is_over(pos):
                s = usref.to_reference(pos.S, T)
                ref = final_components(s)
                fast.final_components(pos.S, T.L, T.R, comps)
                assert {k: comps[i].tolist() for i, k in enumerate(ref)} == ref
                assert [(fast.theme_tiles(pos.S, T.L, p),) for p in range(n)] == tiebreak(s)
                checked += 1
            if protocol.is_over(pos):
                break
            protocol.apply(pos, agent.choose(pos, pos.seat_to_move, rng))
            step += 1
        assert protocol.outcome(pos) == usref.reference_outcome(usref.to_reference(pos.S, T))
    assert checked > 200


def test_compiled_scoring_of_the_worked_position(us_cfg):
    """The hand-scored position of test_us_examples.test_final_scoring_by_hand through the kernel:
    seat 1 16 publishing + 7 sets + 28 majorities + 3 Prestige (space 3) + 3 leftovers = 57, seat 2
    16 majorities, seat 3 7; theme tiles 5, 5, 1. The heuristic is the logistic of the margin over
    the best other seat at the YAML's scale 10: seat 1 1 / (1 + e^-4.1), seat 2 1 / (1 + e^4.1),
    seat 3 1 / (1 + e^5); returns give seat 1 the whole win. The heuristic's ``progress`` is 0 here
    (the points-now margin; base.yaml weighs progress for the search, tested in
    test_us_move_scores.test_heuristic_weighs_progress_as_documented) and its ``contest`` ``best``
    (base.yaml's ``pairwise``: test_heuristic_contests_of_the_worked_position)."""
    s = final_scoring_position(us_cfg)
    T = kernel.compile(us_cfg, 3)._replace(progress=0.0, contest=kernel.CONTEST_BEST)
    S = load(T, s)
    points = np.zeros(3, np.int64)
    kernel.scores(S, T, points)
    assert points.tolist() == [57, 16, 7]
    h = np.zeros(3)
    kernel.heuristic(S, T, h)
    assert h == pytest.approx([1 / (1 + math.exp(-4.1)), 1 / (1 + math.exp(4.1)), 1 / (1 + math.exp(5.0))])
    r = np.zeros(3)
    kernel.returns(S, T, r)
    assert r.tolist() == [1.0, 0.0, 0.0]


def test_heuristic_contests_of_the_worked_position(us_cfg):
    """``agents.heuristic.contest`` on the worked position (points 57, 16, 7; progress 0, scale 10,
    so the values in tens are 5.7, 1.6, 0.7). ``pairwise``: per seat the mean over the other two of
    the logistic of the margin over each: seat 1 (s(4.1) + s(5.0)) / 2, seat 2 (s(-4.1) + s(0.9)) / 2,
    seat 3 (s(-5.0) + s(-0.9)) / 2, s(x) = 1 / (1 + e^-x); ``share``: e^5.7, e^1.6, e^0.7 over
    their sum (seat 1 0.9772, seat 2 0.0162, seat 3 0.0066 to 4 places). At two players both equal
    ``best`` (the test of progress's position: a margin of 2 points at progress 0), pairwise exactly."""
    s = final_scoring_position(us_cfg)
    T = kernel.compile(us_cfg, 3)._replace(progress=0.0)
    S = load(T, s)

    def sig(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    h = np.zeros(3)
    kernel.heuristic(S, T._replace(contest=kernel.CONTEST_PAIRWISE), h)
    assert h == pytest.approx([(sig(4.1) + sig(5.0)) / 2, (sig(-4.1) + sig(0.9)) / 2, (sig(-5.0) + sig(-0.9)) / 2])
    kernel.heuristic(S, T._replace(contest=kernel.CONTEST_SHARE), h)
    e = [math.exp(5.7), math.exp(1.6), math.exp(0.7)]
    assert h == pytest.approx([x / sum(e) for x in e])
    assert h == pytest.approx([0.9772, 0.0162, 0.0066], abs=1e-4)
    two = position(us_cfg, 2)
    two.money[0] += 10
    S2 = usref.load(two)
    T2 = kernel.compile(us_cfg, 2)._replace(progress=0.0)
    h2 = {}
    for contest in (kernel.CONTEST_BEST, kernel.CONTEST_PAIRWISE, kernel.CONTEST_SHARE):
        h2[contest] = np.zeros(2)
        kernel.heuristic(S2, T2._replace(contest=contest), h2[contest])
        assert h2[contest] == pytest.approx([sig(0.2), sig(-0.2)])
    # pairwise is best's very arithmetic at two players: two-player games are unchanged bit for bit
    assert h2[kernel.CONTEST_PAIRWISE].tolist() == h2[kernel.CONTEST_BEST].tolist()


def test_returns_break_a_tie_on_points_by_theme_tiles_then_share(us_cfg):
    """Determine Victory: seats level on points are split by theme tiles; level on both, they share.
    Seats 1 and 2 of the worked position are made level on points (seat 2 gains 41 publishing
    points, 57 each): theme tiles 5 and 5 tie too, so they share 1/2 each. Then a gastronomy tile
    for seat 2, worked out below, and 7 points for seat 1 make them level again, 62 each, and seat
    2's 6 theme tiles beat seat 1's 5."""
    s = final_scoring_position(us_cfg)
    s.vp[1] += 41
    T = kernel.compile(us_cfg, 3)
    S = load(T, s)
    points, r = np.zeros(3, np.int64), np.zeros(3)
    kernel.scores(S, T, points)
    assert points.tolist() == [57, 57, 7]
    kernel.returns(S, T, r)
    assert r.tolist() == [0.5, 0.5, 0.0]
    # seat 2 holds 2/0/0/3 themes; a gastronomy tile for seat 2 ties it with seats 1 and 3 on
    # gastronomy (1 each: (9 + 5 + 2) // 3 = 5 instead of 7, 7 and 0 for seats 1, 3, 2): points
    # 57 - 2 = 55, 57 + 5 = 62, 7 - 2 = 5; seat 2 wins outright
    s.th_up[1][1] = 1
    S = load(T, s)
    kernel.scores(S, T, points)
    assert points.tolist() == [55, 62, 5]
    kernel.returns(S, T, r)
    assert r.tolist() == [0.0, 1.0, 0.0]
    # level on points, seat 1 with more theme tiles wins: seat 1 + 7 points -> 62 = 62, tiles 5 < 6
    s.vp[0] += 7
    S = load(T, s)
    kernel.scores(S, T, points)
    kernel.returns(S, T, r)
    assert points.tolist() == [62, 62, 5] and r.tolist() == [0.0, 1.0, 0.0]


def test_move_codes_round_trip(us_cfg):
    """Every legal decision of random games encodes to a distinct code that decodes to it, in the
    compiled and in the Python encoder alike."""
    for n in (2, 4):
        pos = us.SPEC.new_game(us_cfg, n, 3)
        rng = np.random.default_rng(3)
        while not protocol.is_over(pos):
            s = usref.to_reference(pos.S, pos.T)
            rows = legal_moves(s)
            codes = protocol.legal_moves(pos)
            assert codes == [kernel.encode_move(m) for m in rows]
            assert [kernel.decode_move(c) for c in codes] == rows
            assert [tuple(int(x) for x in kernel.decode(np.int64(c))) for c in codes[:5]] == rows[:5]
            assert len(set(codes)) == len(codes)
            protocol.apply(pos, codes[min(int(rng.random() * len(codes)), len(codes) - 1)])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_greedy_and_policy_pick_legal_interface_moves(us_cfg, n):
    """The greedy agent keeps its own pruned choice of dice (candidate_moves) and its own Travel and
    Supply rules: at every decision of random games (every kind of position), the move it picks, and
    the rollout policy's, is one of the interface's legal moves, and choosing leaves the position as
    it was."""
    T = kernel.compile(us_cfg, n)
    out = np.zeros(T.L.max_moves, np.int64)
    greedy = us.make_agent(us_cfg, "greedy")
    checked = 0
    for seed in range(3):
        pos = us.SPEC.new_game(us_cfg, n, game_seed(41, seed))
        rng = np.random.default_rng(seed)
        while not protocol.is_over(pos):
            legal = set(protocol.legal_moves(pos))
            before = usref.to_reference(pos.S, T)
            assert greedy.choose(pos, pos.seat_to_move, np.random.default_rng(checked)) in legal
            assert int(kernel.greedy(pos.S, T, out, np.random.default_rng(checked))) in legal
            assert int(kernel.policy(pos.S, T, out, np.random.default_rng(checked))) in legal
            same_state(pos.S, T, before)  # (the look-ahead may write stale slots past a list's count)
            checked += 1
            codes = sorted(legal)
            protocol.apply(pos, codes[min(int(rng.random() * len(codes)), len(codes) - 1)])
    assert checked > 500


def test_compiled_greedy_agent_plays_the_reference_games(us_cfg):
    """The protocol's greedy (fast.choose) and the readable GreedyAgent play the same games from the
    same seeds, move for move, and the compiled outcome equals the reference's (30 seeds per count;
    test_us_fast checks 100 more per table through play_game)."""
    for n in (2, 3, 4):
        for i in range(30 if n == 2 else 10):
            seed = game_seed(2027, i)
            assert us.play_game(us_cfg, ["greedy"] * n, seed) == usref.play_game_reference(us_cfg, ["greedy"] * n, seed)


def test_rollout_tables_through_the_protocol_equal_the_reference(us_cfg):
    """A table with a rollout seat plays through the protocol (greedy and rollout on the compiled
    engine, agents.CompiledRolloutAgent): the same game as on the reference engine, stepped
    beside it with the same agents' draws. The reference rollout agent is given the compiled position
    of the same moment (``position``): what is face down is recorded only there, and rollout
    determinizes from it before each playout (tests/test_hidden_information.py), so a reference game
    alone (``play_game_reference``, which cannot tell it) no longer plays the same rollout games."""
    from us_reference.agents import GreedyAgent, RolloutAgent
    from us_reference.rules import apply_move

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
    for i in range(2):
        seed = game_seed(5, i)
        pos = us.SPEC.new_game(cheap, 2, seed)
        state = usref.new_reference_game(cheap, 2, seed)
        protocol_players = [us.make_agent(cheap, "rollout"), us.make_agent(cheap, "greedy")]
        reference_players = [RolloutAgent(cheap), GreedyAgent(cheap)]
        _, rng = game_rngs(seed)
        _, reference_rng = game_rngs(seed)
        while not protocol.is_over(pos):
            seat = pos.seat_to_move
            assert state.seat == seat
            told = (pos.S.copy(), pos.T)
            code = protocol_players[seat].choose(pos, seat, rng)
            if seat == 0:
                mv = reference_players[0].choose(state, seat, reference_rng, told)
            else:
                mv = reference_players[1].choose(state, seat, reference_rng)
            assert kernel.encode_move(mv) == code
            protocol.apply(pos, code)
            apply_move(state, mv)
        assert state.phase == P_OVER
        assert protocol.outcome(pos) == usref.reference_outcome(state)


@pytest.mark.parametrize(
    "agents", [["greedy", "random"], ["random", "greedy", "greedy"], ["greedy", "random", "random", "greedy"]]
)
def test_describe_reads_the_compiled_state_as_the_reference_describer(us_cfg, agents):
    """The transcript line of every decision of whole games (kernel.describe over the compiled state)
    is the readable describer's over the reference state equal to it (us_reference.describe, the
    oracle); at least 14 of the 18 kinds of decision occur."""
    from us_reference.describe import describe

    kinds = set()
    for i in range(3):
        seed = game_seed(77, i)
        pos = us.SPEC.new_game(us_cfg, len(agents), seed)
        players = [us.make_agent(us_cfg, a) for a in agents]
        _, rng = game_rngs(seed)
        while not protocol.is_over(pos):
            seat = pos.seat_to_move
            code = players[seat].choose(pos, seat, rng)
            move = kernel.decode_move(code)
            expected = describe(usref.to_reference(pos.S, pos.T), move, us_cfg)
            assert kernel.describe_move(pos.S, pos.T, code) == expected == us.ENGINE.describe_move(pos.S, pos.T, code)
            kinds.add(move[0])
            protocol.apply(pos, code)
    assert len(kinds) >= 14, sorted(kinds)


def _light(cfg):
    """``cfg`` with rollout-light.yaml's rollout budget: 1 playout for each of the 3 best candidates, to the end."""
    ro = cfg.agents.rollout.model_copy(update={"playouts": 1, "candidates": 3, "horizon_rounds": 0})
    return cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"rollout": ro})})


@pytest.mark.parametrize(
    "agents,seeds",
    [(["rollout", "greedy"], 3), (["greedy", "rollout"], 1), (["rollout", "greedy", "rollout", "random"], 2)],
)
def test_compiled_rollout_agent_decides_as_the_reference_rollout_agent(us_cfg, agents, seeds):
    """The protocol's ``rollout`` (:class:`.agents.CompiledRolloutAgent`, the compiled engine only) and
    the readable :class:`RolloutAgent` on the reference state equal to the compiled one (seated by
    :class:`OnReference`, as runs seated it until the rollout agent was compiled), given the same generator state before every
    decision, make the same decision and leave the generator in the same state, at every decision of
    whole games with rollout-light.yaml's parameters (its ranking's clones of the reference state, the
    greedy turns they finish, the determinized playouts: the same draws)."""
    from us_reference.agents import OnReference, RolloutAgent

    light = _light(us_cfg)
    searched = 0
    for i in range(seeds):
        seed = game_seed(31, i)
        pos = us.SPEC.new_game(light, len(agents), seed)
        players = [us.make_agent(light, a) for a in agents]
        oracle = OnReference(RolloutAgent(light))
        _, rng = game_rngs(seed)
        while not protocol.is_over(pos):
            seat = pos.seat_to_move
            if agents[seat] == "rollout":
                twin = np.random.Generator(np.random.PCG64())
                twin.bit_generator.state = rng.bit_generator.state
                S = pos.S.copy()
                expected = oracle.choose(pos, seat, twin)
                pos.S[:] = S
                code = players[seat].choose(pos, seat, rng)
                assert code == expected
                assert rng.bit_generator.state == twin.bit_generator.state
                searched += pos.S[fast.G_PHASE] == P_MAIN
            else:
                code = players[seat].choose(pos, seat, rng)
            protocol.apply(pos, code)
    assert searched >= 20 * seeds


# --------------------------------------------------------------------------------------------------
# hidden information


def _cards(S, at, k):
    return [int(x) for x in S[at : at + k]]


def test_determinize_at_set_up_redeals_the_other_hand_and_the_deck(us_cfg):
    """Set Up, two players, seat 1 to discard: seat 1 sees its own five cards, the board and the
    display; seat 2's five face-down cards and the deck's 38 are one pool of 43 unseen cards, dealt
    again (seat 2 keeps five, the deck 38), the bag keeps its 25 tiles in a new order."""
    T = kernel.compile(us_cfg, 2)
    L = T.L
    S = kernel.new_state(T, np.random.default_rng(1))
    hand = lambda X, p: _cards(X, L.o_hand + p * L.n_cards, int(X[L.o_hand_n + p]))  # noqa: E731
    deck = lambda X: _cards(X, L.o_deck, int(X[fast.G_DECK_N]))  # noqa: E731
    bag = lambda X: _cards(X, L.o_bag, int(X[fast.G_BAG_N]))  # noqa: E731
    assert S[fast.G_PHASE] == P_SETUP and len(hand(S, 1)) == 5 and len(deck(S)) == 65 - 12 - 10
    changed_hand = changed_bag = 0
    for r in range(8):
        D = S.copy()
        kernel.determinize(D, T, 0, np.random.default_rng(r))
        assert hand(D, 0) == hand(S, 0)
        assert _cards(D, L.o_board, L.spaces) == _cards(S, L.o_board, L.spaces)
        assert _cards(D, L.o_display, L.display) == _cards(S, L.o_display, L.display)
        assert sorted(hand(D, 1) + deck(D)) == sorted(hand(S, 1) + deck(S))
        assert len(hand(D, 1)) == 5 and len(deck(D)) == len(deck(S))
        assert sorted(bag(D)) == sorted(bag(S))
        changed_hand += hand(D, 1) != hand(S, 1)
        changed_bag += bag(D) != bag(S)
        # only the deck, the bag and seat 2's hand row may differ
        diff = np.flatnonzero(D != S)
        hidden = (
            set(range(L.o_deck, L.o_deck + L.n_cards))
            | set(range(L.o_bag, L.o_bag + L.n_tiles))
            | set(range(L.o_hand + L.n_cards, L.o_hand + 2 * L.n_cards))
        )
        assert set(diff.tolist()) <= hidden
    assert changed_hand >= 7 and changed_bag >= 7


def test_determinize_keeps_cards_picked_up_from_the_board(us_cfg):
    """Seat 2 holds two face-down cards and, after them, one picked up from the face-up board; seat 1
    has sketched nothing. For seat 1, seat 2's picked-up card stays where it is, its two face-down
    cards are redealt from the pool (with the deck); for seat 2 nothing of its hand changes. The
    card seat 2 sketches leaves the face-down ones when it is one of them, not when it was picked up."""
    s = position(us_cfg, 2)
    T = kernel.compile(us_cfg, 2)
    L = T.L
    down = [s.deck.pop(), s.deck.pop()]
    picked = s.board[0]
    s.board[0] = -1
    s.hand[1] = down + [picked]
    S = load(T, s)
    S[L.o_secret + 1] = 2
    row = L.o_hand + L.n_cards
    for r in range(6):
        D = S.copy()
        kernel.determinize(D, T, 0, np.random.default_rng(r))
        assert int(D[row + 2]) == picked and int(D[L.o_secret + 1]) == 2
        pool = sorted(down + _cards(S, L.o_deck, int(S[fast.G_DECK_N])))
        assert sorted(_cards(D, row, 2) + _cards(D, L.o_deck, int(D[fast.G_DECK_N]))) == pool
        E = S.copy()
        kernel.determinize(E, T, 1, np.random.default_rng(r))
        assert _cards(E, row, 3) == down + [picked]
    # seat 2 sketches: its picked-up card keeps both face down; then one face-down card leaves them
    s.seat, s.first = 1, 1
    s.bp[1] = [0, 0, 1, 1, 2, 2, 3, 3, 0, 1, 2, 3]
    s.reserve = [x - 3 for x in s.reserve]
    S = load(T, s)
    S[L.o_secret + 1] = 2
    rng = np.random.default_rng(0)
    for mv in (place(1, SKETCH), (K_SKETCH, picked, 0, -1)):
        assert kernel.encode_move(mv) in kernel_legal(S, T)
        kernel.apply(S, T, kernel.encode_move(mv), rng)
    assert int(S[L.o_secret + 1]) == 2 and _cards(S, row, 2) == down
    kernel.apply(S, T, kernel.encode_move((K_SKETCH, down[1], 0, -1)), rng)
    assert int(S[L.o_secret + 1]) == 1 and _cards(S, row, 1) == down[:1]


def kernel_legal(S, T) -> list[int]:
    out = np.zeros(T.L.max_moves, np.int64)
    return out[: kernel.legal(S, T, out)].tolist()


def test_a_rebuilt_deck_is_shuffled_on_its_own(us_cfg):
    """Travel ends with an empty deck: the board refill rebuilds the deck from the discard pile
    (G_DECK_SEEN). From then on the deck holds seen cards only: determinize shuffles the deck's
    cards among themselves, and the three-player table's other face-down cards only among seats 2
    and 3 (counts kept), never with the deck."""
    s = position(us_cfg, 3)
    T = kernel.compile(us_cfg, 3)
    L = T.L
    s.hand[1], s.hand[2] = [s.deck.pop(), s.deck.pop()], [s.deck.pop()]
    s.discard.extend(s.deck)
    s.deck = []
    s.money[0] = 5
    S = load(T, s)
    S[L.o_secret + 1], S[L.o_secret + 2] = 2, 1
    rng = np.random.default_rng(0)
    for mv in (place(0, TRAVEL), (K_PICK, 0, 0, 0), (K_END, 0, 0, 0)):
        kernel.apply(S, T, kernel.encode_move(mv), rng)
    assert S[fast.G_DECK_SEEN] == 1 and S[fast.G_DECK_N] > 0
    deck = sorted(_cards(S, L.o_deck, int(S[fast.G_DECK_N])))
    others = sorted(_cards(S, L.o_hand + L.n_cards, 2) + _cards(S, L.o_hand + 2 * L.n_cards, 1))
    orders = set()
    for r in range(10):
        D = S.copy()
        kernel.determinize(D, T, 0, np.random.default_rng(r))
        assert sorted(_cards(D, L.o_deck, int(D[fast.G_DECK_N]))) == deck
        assert sorted(_cards(D, L.o_hand + L.n_cards, 2) + _cards(D, L.o_hand + 2 * L.n_cards, 1)) == others
        orders.add(tuple(_cards(D, L.o_deck, int(D[fast.G_DECK_N]))))
        assert np.array_equal(kernel.observation(D, T, 0), kernel.observation(S, T, 0))
    assert len(orders) > 5


def test_observation_hides_exactly_the_hidden_items(us_cfg):
    """The observation blanks the deck, the bag and the other seats' face-down cards, nothing else
    the seat can see: two positions that differ only in those items look the same to the seat, and
    determinize makes them the same position; a difference in a seat's own hand is seen."""
    T = kernel.compile(us_cfg, 2)
    L = T.L
    S = kernel.new_state(T, np.random.default_rng(4))
    X = S.copy()
    row = L.o_hand + L.n_cards
    X[row], X[L.o_deck] = S[L.o_deck], S[row]  # swap a face-down card of seat 2 with the deck's
    X[L.o_bag], X[L.o_bag + 1] = S[L.o_bag + 1], S[L.o_bag]
    assert np.array_equal(kernel.observation(X, T, 0), kernel.observation(S, T, 0))
    assert not np.array_equal(kernel.observation(X, T, 1), kernel.observation(S, T, 1)), "seat 2 sees its hand"
    a, b = S.copy(), X.copy()
    kernel.determinize(a, T, 0, np.random.default_rng(9))
    kernel.determinize(b, T, 0, np.random.default_rng(9))
    assert np.array_equal(a, b)


def test_protocol_game_equals_the_reference_game_move_for_move(us_cfg):
    """A mixed table stepped through the protocol makes the decisions of the reference engine with
    the reference agents (the random seat's draw included) and ends in the same state."""
    agents = ["greedy", "random", "greedy"]
    seed = game_seed(8, 1)
    pos = us.SPEC.new_game(us_cfg, 3, seed)
    s = usref.new_reference_game(us_cfg, 3, seed)
    players = [us.make_agent(us_cfg, a) for a in agents]
    ref = [usref.agents.make(us_cfg, a) for a in agents]
    _, r1 = game_rngs(seed)
    _, r2 = game_rngs(seed)
    while not protocol.is_over(pos):
        code = players[pos.seat_to_move].choose(pos, pos.seat_to_move, r1)
        mv = ref[s.seat].choose(s, s.seat, r2)
        assert kernel.decode_move(code) == tuple(mv)
        protocol.apply(pos, code)
        apply_move(s, mv)
    assert s.phase == P_OVER
    same_state(pos.S, pos.T, s)


def test_the_money_metrics_are_named_by_where_the_money_goes():
    """Issue 50: an axis read "paid players per player". The three money metrics count what a white
    die placed on an action another player holds pays that player (§ placing dice: ``paid_players``,
    and the payee's ``received_from_players``) and what a placement pays the bank (``paid_bank``):
    each page and axis names the money and who it goes to or comes from."""
    from balancer.games.urban_sketchers.metrics import METRICS

    labels = {m.name: m.label for m in METRICS.metrics}
    assert labels["paid_players"] == "money paid to other players, per player"
    assert labels["paid_bank"] == "money paid to the bank, per player"
    assert labels["received_from_players"] == "money received from other players, per player"
