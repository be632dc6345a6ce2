"""Completion in Urgency: a game the ``cards.max_turns`` safety stop ends is recorded as ended by
the turn cap (``ended_by``), not by the rules (issue 29: the Ibex lock)."""

from __future__ import annotations

import numpy as np

from balancer.core.game import ranks_and_win_shares
from balancer.core.kernel import ENDED_BY, RULES, TURN_CAP
from balancer.games.urgency import ended_by_codes
from balancer.games.urgency.config import ANIMAL_DECKS
from balancer.games.urgency.kernel import ENGINE, KERNEL, MAX_MOVES
from balancer.games.urgency.rules import DECK, MASK, PS, SCORED, SUP, TOTAL_TURNS, advance
from balancer.sim.records import OutcomeRows

from .test_rules import at_turn_start, card, position, std, tiles  # noqa: F401  (std: a fixture)

IBEX_LOCK = ("Ibex: Sure Footing", "Ibex: Leap", "Ibex: Ridge Run")
"""0 -> 2, 1 -> 2, 3 -> 4 (configs/urgency/decks.yaml, all assumed): with the 2 dice every roll is 2 or 4."""


def test_the_ibex_lock_is_recorded_as_ended_by_the_turn_cap(std):  # noqa: F811
    """Seat 1 plays Ibex with the three roll cards in play and its 7 tokens on the even tiles 2-14:
    every roll is 2 or 4, so each token stays on an even tile (a captured one re-enters on 2 or 4)
    and none can land exactly on 15; seat 2 has 7 tokens in supply and 3 turns left before
    ``max_turns``, too few to score 7 tokens (one scores at best per roll of 4 from the start, never
    7 in 3 turns even with roll agains, as no token can go from supply to 15 in one roll of at most
    4). So the game must end at the stop: ended_by is TURN_CAP, seat 1 has scored 0, and the win
    shares (equal scores share, else the leader wins) still sum to 1."""
    game = position(std, mine=[2, 4, 6, 8, 10, 12, 14], theirs=[], my_supply=0)
    S, T = game.S, game.T
    S[DECK] = ANIMAL_DECKS.index("ibex")
    S[PS + DECK] = ANIMAL_DECKS.index("eagle")
    at_turn_start(game, [card(std, name) for name in IBEX_LOCK])
    max_turns = std.cards.max_turns
    S[TOTAL_TURNS] = max_turns - 6  # 6 turns left: 3 per seat
    rng = np.random.default_rng(7)
    advance(S, T.rules, rng)
    out = np.zeros(MAX_MOVES, np.int64)
    while not KERNEL.is_over(S, T):
        n = KERNEL.legal(S, T, out)
        KERNEL.apply(S, T, out[rng.integers(n)], rng)
        assert int(S[MASK]) & tiles(*range(1, 15, 2)) == 0, "an Ibex token reached an odd tile"
    assert S[TOTAL_TURNS] == max_turns
    assert S[SCORED] == 0 and S[PS + SCORED] < 7
    assert S[SUP] + bin(int(S[MASK])).count("1") == 7
    assert KERNEL.ended_by(S, T) == TURN_CAP
    outcome = ENGINE.outcome(S, T)
    assert outcome.ended_by == "turn_cap"
    ranks, shares = ranks_and_win_shares(outcome.scores, outcome.tiebreak)
    assert sum(shares) == 1.0
    rows = OutcomeRows("urgency", "standard", 2, 0)
    rows.check(outcome, 0)
    rows.add(0, ["random", "random"], outcome, ranks, shares)
    table = rows.table()
    assert table is not None and table.column("ended_by").to_pylist() == ["turn_cap", "turn_cap"]


def test_a_game_won_by_the_rules_is_recorded_so(std):  # noqa: F811
    """Seat 1 has scored 6 and moves its last token from tile 13 with a roll of 2 onto 15: 7 scored,
    the game is won (How to Win), ended_by is RULES."""
    game = position(std, mine=[13], theirs=[5], roll=2, scored=(6, 0))
    S, T = game.S, game.T
    KERNEL.apply(S, T, np.int64(13), np.random.default_rng(0))  # MOVE from tile 13 (code = the tile)
    assert KERNEL.is_over(S, T) and S[SCORED] == 7
    assert ENDED_BY[KERNEL.ended_by(S, T)] == "rules"
    assert ENGINE.outcome(S, T).ended_by == "rules"


def test_chunk_codes_from_the_tokens_scored():
    """A chunk's games (to_win 7): (7, 3) and (2, 7) were won by the rules; (5, 5) and (0, 6) reached
    no 7, so the max_turns stop ended them."""
    scored = np.array([[7, 3], [2, 7], [5, 5], [0, 6]])
    assert ended_by_codes(scored, 7).tolist() == [RULES, RULES, TURN_CAP, TURN_CAP]
