"""Urgency rules that decide who wins, checked sentence by sentence against the rulebook
(shared/rules/urgency.txt): How to Win, Rule Cards (the 4th score), Setup. Positions are set up by
hand with :func:`~tests.games.urgency.test_rules.position`; each derivation is in the comment."""

from __future__ import annotations

from balancer.core import protocol
from balancer.games import urgency
from balancer.games.urgency.kernel import unpack
from balancer.games.urgency.rules import (
    DECK,
    DISC,
    INPLAY,
    MOVE,
    NDISC,
    NEXT_ROLL,
    NEXTPILE,
    NPLAY,
    NROS,
    OPPSC,
    PH_OVER,
    PH_PICK,
    PHASE,
    PICK,
    PILES,
    PS,
    ROS,
    SCORED,
    WINNER,
)

from .test_rules import decision, position, std, tiles  # noqa: F401  (std: a fixture)


def test_first_to_score_six_wins_at_once(std):  # noqa: F811
    """How to Win: "Be the first to score 6 of your 7 tokens." I have scored 5 and my token on 13
    rolls 2: 13 + 2 = 15 scores the 6th token. The game is over at once (the opponent, on 5 scored,
    gets no further turn) and I win: scores 6 to 5."""
    game = position(std, mine=[13], theirs=[14], roll=2, my_supply=1, their_supply=1, scored=(5, 5))
    S = game.S
    protocol.apply(game, decision(MOVE, 13))
    assert protocol.is_over(game) and S[PHASE] == PH_OVER and S[WINNER] == 0
    out = protocol.outcome(game)
    assert out.scores == [6, 5]
    assert S[PS + SCORED] == 5


def test_five_scored_is_not_yet_a_win(std):  # noqa: F811
    """How to Win: 5 of 7 is not enough: scoring the 5th token (from 13 with a 2) leaves the game
    running, and the opponent (next roll forced to 0) takes a turn."""
    game = position(std, mine=[13], theirs=[1], roll=2, my_supply=2, scored=(4, 0))
    S = game.S
    S[PS + NEXT_ROLL] = 0
    S[NEXT_ROLL] = 0
    protocol.apply(game, decision(MOVE, 13))
    assert S[SCORED] == 5 and not protocol.is_over(game)


def _piles_used(S, unlocks: int, discard: list[int]) -> None:
    """The opponent (seat 1, Ibex deck) has had ``unlocks`` cards unlocked, has no pile left, holds
    ``discard`` in its discard pile and will pass its next turn (forced 0)."""
    o = PS
    S[o + DECK] = 1
    S[o + OPPSC] = unlocks
    S[o + NEXTPILE] = 3
    S[o + NDISC] = len(discard)
    S[o + DISC : o + DISC + len(discard)] = discard
    S[o + NEXT_ROLL] = 0


def test_the_opponents_fourth_score_takes_the_final_card_from_the_discard_pile(std):  # noqa: F811
    """Rule Cards: "When your opponent scores the 4th time, choose your final rule card from your
    discard pile." The opponent (seat 1) has used its 3 piles (next pile 3) and holds 4 cards in its
    discard pile (1 from setup + 1 from each pile); I score my 4th token (13 + 2 = 15): seat 1 picks
    among exactly those 4 cards, the chosen one comes into play and 3 stay discarded. My 5th score
    then brings nothing more into play (only up to the 4th)."""
    game = position(std, mine=[12, 13], roll=2, my_supply=2, scored=(3, 0))
    S = game.S
    ibex = [i for i, n in enumerate(urgency.card_names(std)) if n.startswith("Ibex:")]
    o = PS
    _piles_used(S, unlocks=3, discard=ibex[:4])
    protocol.apply(game, decision(MOVE, 13))
    assert S[PHASE] == PH_PICK and game.seat_to_move == 1
    assert sorted(unpack(m)[1] for m in protocol.legal_moves(game)) == sorted(ibex[:4])
    protocol.apply(game, decision(PICK, ibex[2]))
    assert S[o + NPLAY] == 1 and S[o + INPLAY] == ibex[2]
    assert S[o + NDISC] == 3 and sorted(S[o + DISC : o + DISC + 3].tolist()) == sorted([ibex[0], ibex[1], ibex[3]])
    # my 5th score (12 + 3 = 15), the opponent having had 4 unlocks: nothing more comes into play
    game = position(std, mine=[12], roll=3, my_supply=2, scored=(4, 0))
    S = game.S
    _piles_used(S, unlocks=4, discard=ibex[:3])
    S[NEXT_ROLL] = 0
    protocol.apply(game, decision(MOVE, 12))
    assert S[SCORED] == 5 and S[o + OPPSC] == 5 and S[o + NPLAY] == 0 and S[o + NDISC] == 3


def test_setup_deals_one_discard_three_piles_of_two_and_two_rosette_cards(std):  # noqa: F811
    """Setup for Each Player: "discard 1 to your discard pile, then make 3 piles of 2 cards each";
    "Shuffle the Rosette rule cards and draw 2. Select 1 ... Remove the other from the game."
    Each seat: 1 discarded + 6 in piles = 7 distinct cards of its own animal deck; 2 Rosette cards
    offered, distinct across both players (one shared Rosette deck); once chosen, the Rosette card is
    the only card in play and the other is in no pile and no discard pile."""
    names = urgency.card_names(std)
    for seed in range(5):
        game = urgency.new_game(std, 2, seed)
        S = game.S
        ros = set()
        for p in range(2):
            b = p * PS
            deck = urgency.rules.ANIMAL_DECKS[int(S[b + DECK])].capitalize()
            assert S[b + NDISC] == 1
            cards = [int(S[b + DISC])] + S[b + PILES : b + PILES + 6].tolist()
            assert len(set(cards)) == 7 and all(names[c].startswith(deck + ":") for c in cards)
            assert S[b + NROS] == 2
            offered = S[b + ROS : b + ROS + 2].tolist()
            assert all(names[c].startswith("Rosette:") for c in offered)
            ros |= set(offered)
        assert len(ros) == 4
        while S[PHASE] == PH_PICK:
            p = game.seat_to_move
            offered = S[p * PS + ROS : p * PS + ROS + 2].tolist()
            protocol.apply(game, decision(PICK, offered[1]))
            assert S[p * PS + INPLAY + S[p * PS + NPLAY] - 1] == offered[1]
            assert offered[0] not in S[p * PS + DISC : p * PS + DISC + int(S[p * PS + NDISC])].tolist()
