"""Urgency rules on positions set up by hand (rulebook headings; issue #5 "Done when").

Each test builds a position by writing the state array directly (:func:`position`), plays one
decision or one step of the turn machine, and checks the result worked out by hand in the comment.
A forced next roll (``NEXT_ROLL``) fixes the dice where a test needs them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balancer.config import load_config, resolve_yaml
from balancer.core import protocol
from balancer.games import get_spec, urgency
from balancer.games.urgency import card_names
from balancer.games.urgency.agents import roll_probs
from balancer.games.urgency.config import ANIMAL_DECKS, UrgencyConfig
from balancer.games.urgency.kernel import deck_labels, move_code, unpack
from balancer.games.urgency.rules import (
    ACTIVE,
    CAPT,
    DICE_N,
    INPLAY,
    LOCK,
    MASK,
    MOVE,
    NEXT_ROLL,
    NPLAY,
    OPPSC,
    PH_MOVE,
    PH_PICK,
    PHASE,
    PICK,
    PS,
    RA_TILE,
    RAS,
    REQ_HEAD,
    REQ_TAIL,
    ROLLED,
    ROLLV,
    SAFEM,
    SCORED,
    ST_END,
    ST_TURN_START,
    STEP,
    SUP,
    T_OPP_ROLL,
    T_OWN_ROLL,
    TURNS,
    advance,
    apply_effect,
    compile_rules,
    fire_both,
    own_move,
    put_in_play,
    resolve,
    roll_pips,
)
from balancer.games.urgency.scoring import tokens_accounted

ROOT = Path(__file__).resolve().parents[3]
NO_CARDS = ROOT / "configs" / "urgency" / "no-cards.yaml"
STANDARD = ROOT / "configs" / "urgency" / "standard.yaml"
MODEL = get_spec("urgency").config_model  # the game's model with the generic agents' keys (agents.mcts)


def decision(kind: int, arg: int = 0) -> int:
    """The kernel's move code of the rules' decision (kind, arg) (balancer/games/urgency/kernel.py)."""
    return move_code(kind, arg)


def tiles(*ts: int) -> int:
    m = 0
    for t in ts:
        m |= 1 << t
    return m


def position(cfg, mine=(), theirs=(), roll=0, my_supply=None, their_supply=None, scored=(0, 0), active=0):
    """A game of ``cfg`` whose active player (``active``) has tokens on ``mine`` and the opponent on
    ``theirs`` (tiles 1-14), about to move with ``roll``. Supplies default to 7 - board - scored.
    No card is in play (cards are put in play by the tests that need them)."""
    game = urgency.new_game(cfg, 2, 1)
    S = game.S
    S[:] = 0
    p, o = active, 1 - active
    for who, ts, sup in ((p, mine, my_supply), (o, theirs, their_supply)):
        b = who * PS
        S[b + MASK] = tiles(*ts)
        S[b + SCORED] = scored[0 if who == p else 1]
        S[b + SUP] = 7 - len(ts) - S[b + SCORED] if sup is None else sup
        S[b + NEXT_ROLL] = -1
        S[b + DICE_N] = cfg.dice
        for i in range(6):
            S[b + 26 + i] = -1  # no piles
        S[b + OPPSC] = 99  # and no card to come into play when the opponent scores
    S[SAFEM] = tiles(*cfg.board.safe)
    S[ACTIVE] = p
    S[ROLLV] = roll
    S[ROLLED] = 1
    S[PHASE] = PH_MOVE
    S[STEP] = ST_END
    return game


def at_turn_start(game, cards=()) -> None:
    """Put ``cards`` (ids) into play for the active player 0 and rewind to the start of its turn."""
    S = game.S
    for c in cards:
        put_in_play(S, game.T.rules, 0, c)
    S[STEP] = ST_TURN_START
    S[PHASE] = 0
    S[ACTIVE] = 0


def card(cfg, name: str) -> int:
    """Card id of ``name`` ("Deck: Name")."""
    return card_names(cfg).index(name)


def with_cards(cards: dict[str, list[dict]]) -> UrgencyConfig:
    """The standard config with some decks replaced by hand-written test cards."""
    data = resolve_yaml(STANDARD).data
    for deck, spec in cards.items():
        data["decks"][deck] = {"cards": spec + [data["decks"][deck]["cards"][0]] * (7 - len(spec))}
    return MODEL.model_validate(data)


@pytest.fixture(scope="module")
def plain():
    return load_config(NO_CARDS)


@pytest.fixture(scope="module")
def std():
    return load_config(STANDARD)


def moves_of(game) -> list[int]:
    return [unpack(m)[1] for m in protocol.legal_moves(game) if unpack(m)[0] == MOVE]


# ------------------------------------------------------------------------ base rules


def test_capture_in_the_centre_row(plain):
    """Attacks: my token on 3 rolls 3 and lands on 6, where the opponent stands: removed to its supply."""
    game = position(plain, mine=[3], theirs=[6], roll=3)
    S = game.S
    S[1 * PS + NEXT_ROLL] = 0  # the opponent then passes, so the position stays readable
    S[0 * PS + NEXT_ROLL] = 0
    protocol.apply(game, decision(MOVE, 3))
    assert S[MASK] == tiles(6)
    assert S[PS + MASK] == 0 and S[PS + SUP] == 7
    assert S[CAPT] == 1
    assert tokens_accounted(S, 7)


def test_no_capture_in_the_home_row(plain):
    """Home rows are private: my tile 2 and the opponent's tile 2 are different squares."""
    game = position(plain, mine=[1], theirs=[2], roll=1)
    game.S[NEXT_ROLL] = 0
    game.S[PS + NEXT_ROLL] = 0
    protocol.apply(game, decision(MOVE, 1))
    assert game.S[PS + MASK] == tiles(2) and game.S[CAPT] == 0


def test_blocked_safe_rosette(plain):
    """Rosette Tiles: the opponent on the black rosette (8) is safe; my token on 5 cannot land there
    with a 3, the token on 6 may move 3 to 9."""
    game = position(plain, mine=[5, 6], theirs=[8], roll=3, my_supply=0)
    assert moves_of(game) == [6]
    assert not protocol.is_legal_move(game, decision(MOVE, 5))


def test_roll_again_on_a_rosette(plain):
    """Rosette Tiles: landing on 4 gives a roll again: the same player rolls (forced 2) and moves again."""
    game = position(plain, mine=[1], roll=3)
    S = game.S
    S[NEXT_ROLL] = 2
    protocol.apply(game, decision(MOVE, 1))
    assert S[ACTIVE] == 0 and S[PHASE] == PH_MOVE and S[ROLLV] == 2
    assert S[RAS] == 1 and S[PS + TURNS] == 0  # the opponent has not had a turn


def test_binary_dice_show_a_pip_with_roll_pip_chance():
    """roll.pip_chance (assumed 1/2). The generator np.random.default_rng(3) starts with the doubles
    0.0856, 0.2368, 0.8013, 0.5822. With pip_chance 1/4 each of the 4 dice shows a pip when its
    double is below 0.25: the first two do, so the roll is 2. At 1/2 the roll is the bits set in one
    uniform integer below 2^4 = 16: int(0.0856 x 16) = 1, one bit, a roll of 1."""
    data = resolve_yaml(STANDARD).data
    assert data["roll"]["pip_chance"] == 0.5
    half = compile_rules(MODEL.model_validate(data))
    data["roll"]["pip_chance"] = 0.25
    quarter = compile_rules(MODEL.model_validate(data))
    assert roll_pips(np.random.default_rng(3), 4, quarter) == 2
    assert roll_pips(np.random.default_rng(3), 4, half) == 1


@pytest.mark.parametrize(
    "chance,probs",
    [
        (0.5, [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16]),  # binomial(4, k) / 16
        (0.25, [0.75**4, 4 * 0.25 * 0.75**3, 6 * 0.25**2 * 0.75**2, 4 * 0.25**3 * 0.75, 0.25**4]),
    ],
)
def test_expectimax_sees_the_dice_distribution_of_roll_pip_chance(chance, probs):
    """The search's roll probabilities: binomial(4, k) c^k (1 - c)^(4 - k) for pip chance c; at 1/4:
    0.31640625, 0.421875, 0.2109375, 0.046875, 0.00390625."""
    data = resolve_yaml(STANDARD).data
    data["roll"]["pip_chance"] = chance
    cfg = MODEL.model_validate(data)
    game = position(cfg, mine=[1])
    out = np.zeros(5)
    roll_probs(game.S, game.T.rules, 0, out)
    assert out.tolist() == pytest.approx(probs, abs=1e-12)


def test_exact_landing_scores(plain):
    """Scoring and board.tile_15: scoring_space (assumed). The '15' of the Board Flow is the space one
    past the last tile: from 13 a 2 lands exactly on it and scores, and the token leaves the board
    (no tile 15 to stand on); a 3 would overshoot, so 13 cannot move; from 14 a 1 scores too."""
    assert plain.board.tile_15 == "scoring_space"
    game = position(plain, mine=[14], roll=1, my_supply=0)
    game.S[PS + NEXT_ROLL] = 0
    game.S[NEXT_ROLL] = 0
    protocol.apply(game, decision(MOVE, 14))
    assert game.S[SCORED] == 1 and game.S[MASK] == 0
    game = position(plain, mine=[13], roll=2, my_supply=0)
    S = game.S
    S[PS + NEXT_ROLL] = 0
    S[NEXT_ROLL] = 0
    protocol.apply(game, decision(MOVE, 13))
    assert S[SCORED] == 1 and S[MASK] == 0
    game = position(plain, mine=[13], roll=3, my_supply=0)
    assert moves_of(game) == []


def test_forced_move(plain):
    """Movement: you must move if you can: with no supply, tokens on 10 and 12 and a roll of 2,
    12 -> 14 is blocked by nothing, 10 -> 12 is blocked by my own token: 12 is the only move."""
    game = position(plain, mine=[10, 12], roll=2, my_supply=0)
    assert protocol.legal_moves(game) == [decision(MOVE, 12)]


def test_own_tokens_never_share_a_tile(plain):
    game = position(plain, mine=[2, 4], roll=2)
    assert 2 not in moves_of(game)
    assert 0 not in moves_of(game)  # entering with 2 lands on my token on 2


def test_pass_on_zero(plain):
    """A roll of 0 moves nothing: the turn passes to the opponent, whose forced 2 is then to move."""
    game = position(plain, mine=[3], theirs=[1], roll=0)
    S = game.S
    at_turn_start(game)
    S[NEXT_ROLL] = 0
    S[PS + NEXT_ROLL] = 2
    advance(S, game.T.rules, game.rng)
    assert S[TURNS] == 1 and S[MASK] == tiles(3)
    assert S[ACTIVE] == 1 and S[ROLLV] == 2 and S[PHASE] == PH_MOVE


# ------------------------------------------------------------------------ rule cards


def test_unlock_pile_when_the_opponent_scores(std):
    """Rule Cards: when I score, the opponent chooses one card of their next pile; the other goes to
    their discard pile."""
    game = urgency.new_game(std, 2, 3)
    while game.S[PHASE] == PH_PICK:  # both Rosette cards
        protocol.apply(game, protocol.legal_moves(game)[0])
    S = game.S
    p = int(S[ACTIVE])
    o = 1 - p
    S[p * PS + MASK] = tiles(13)
    S[p * PS + SUP] = 6
    S[ROLLV] = 2
    S[PHASE] = PH_MOVE
    pile = [int(S[o * PS + 26]), int(S[o * PS + 27])]
    protocol.apply(game, decision(MOVE, 13))
    assert S[PHASE] == PH_PICK and game.seat_to_move == o
    assert sorted(unpack(m)[1] for m in protocol.legal_moves(game)) == sorted(pile)
    protocol.apply(game, decision(PICK, pile[1]))
    assert S[o * PS + NPLAY] == 2 and S[o * PS + INPLAY + 1] == pile[1]
    assert pile[0] in [int(S[o * PS + 32 + i]) for i in range(int(S[o * PS + 10]))]


def test_tortoise_rolls_three_dice_unless_a_card_names_four(std):
    """Tortoise: any Tortoise card in play means 3 dice; Ancient Shell (dice 4) overrides it."""
    game = position(std, mine=[1])
    put_in_play(game.S, game.T.rules, 0, card(std, "Tortoise: Hard Shell"))
    assert game.S[DICE_N] == 3
    put_in_play(game.S, game.T.rules, 0, card(std, "Tortoise: Ancient Shell"))
    assert game.S[DICE_N] == 4


def test_safe_tiles_card(std):
    """Lion Territory makes 12 safe for everyone: my 9 cannot land on the opponent's 12 with a 3."""
    game = position(std, mine=[9], theirs=[12], roll=3, my_supply=0)
    assert moves_of(game) == [9]
    put_in_play(game.S, game.T.rules, 1, card(std, "Lion: Territory"))
    assert moves_of(game) == []


def _effect(cfg, game, p, name):
    apply_effect(game.S, game.T.rules, p, card(cfg, name))
    resolve(game.S, game.T.rules)


def test_attack_card(std):
    """Bull Stampede attacks 5, 6, 7: the opponent's tokens there are removed, not the one on 8 (safe)."""
    game = position(std, mine=[1], theirs=[5, 7, 8])
    _effect(std, game, 0, "Bull: Stampede")
    assert game.S[PS + MASK] == tiles(8) and game.S[PS + SUP] == 6 and game.S[CAPT] == 2


def test_set_next_roll_cards(std):
    game = position(std, mine=[1])
    _effect(std, game, 0, "Rosette: Oracle")  # my next roll is 4
    _effect(std, game, 0, "Rosette: Veil")  # the opponent's next roll is 1
    assert game.S[NEXT_ROLL] == 4 and game.S[PS + NEXT_ROLL] == 1


def test_change_roll_card(std):
    """Ibex Sure Footing: my 0 becomes a 2, so I move."""
    game = position(std, mine=[1], roll=0)
    put_in_play(game.S, game.T.rules, 0, card(std, "Ibex: Sure Footing"))
    fire_both(game.S, game.T.rules, T_OWN_ROLL, T_OPP_ROLL, 0)
    resolve(game.S, game.T.rules)
    assert game.S[ROLLV] == 2


@pytest.mark.parametrize("tortoise,expect", [(False, 4), (True, 3)])
def test_a_changed_roll_stays_within_the_dice_in_play(tortoise, expect):
    """cards.change_roll_range: dice_in_play. I roll 3; the opponent's card adds 2 to my roll of 3
    (3 + 2 = 5). With 4 dice the result is clamped to 4, the most pips 4 dice show; with a Tortoise
    card in play I roll 3 dice (the deck rule), so the result is clamped to 3, not 4."""
    cfg = with_cards(
        {
            "lion": [
                {
                    "name": "Gust",
                    "trigger": {"when": "opponent_roll", "value": 3},
                    "effect": {"do": "change_roll", "value": 2},
                }
            ]
        }
    )
    game = position(cfg, mine=[1], roll=3)
    S = game.S
    if tortoise:
        put_in_play(S, game.T.rules, 0, card(cfg, "Tortoise: Hard Shell"))
        assert S[DICE_N] == 3
    put_in_play(S, game.T.rules, 1, card(cfg, "Lion: Gust"))
    fire_both(S, game.T.rules, T_OWN_ROLL, T_OPP_ROLL, 3)
    resolve(S, game.T.rules)
    assert S[ROLLV] == expect


def test_roll_again_card_counts_once():
    """Definitions (roll again): a card's roll again on landing on a rosette and the rosette's own roll
    again are one roll again, taken after the move (the forced 3 is then to be moved, same player)."""
    cfg = with_cards(
        {"lizard": [{"name": "Bask", "trigger": {"when": "land_rosette"}, "effect": {"do": "roll_again"}}]}
    )
    game = position(cfg, mine=[1], roll=3)
    put_in_play(game.S, game.T.rules, 0, card(cfg, "Lizard: Bask"))
    game.S[NEXT_ROLL] = 3
    protocol.apply(game, decision(MOVE, 1))
    assert game.S[RAS] == 1 and game.S[ACTIVE] == 0 and game.S[ROLLV] == 3


def test_roll_again_card_on_scoring(std):
    """Rosette Crown: scoring from 13 with a 2 gives a roll again (no rosette involved)."""
    game = position(std, mine=[1, 13], roll=2, my_supply=3)
    put_in_play(game.S, game.T.rules, 0, card(std, "Rosette: Crown"))
    game.S[NEXT_ROLL] = 1
    protocol.apply(game, decision(MOVE, 13))
    assert game.S[SCORED] == 1 and game.S[RAS] == 1 and game.S[ACTIVE] == 0 and game.S[ROLLV] == 1


def test_extra_move_card(std):
    """Rosette Chariot: the rearmost token moves 2 (3 -> 5)."""
    game = position(std, mine=[3, 9])
    _effect(std, game, 0, "Rosette: Chariot")
    assert game.S[MASK] == tiles(5, 9)


def test_reenter_card(std):
    """Rosette Scarab: a token from the supply straight onto 4."""
    game = position(std, mine=[1])
    _effect(std, game, 0, "Rosette: Scarab")
    assert game.S[MASK] == tiles(1, 4) and game.S[SUP] == 5


def test_move_opponent_is_not_an_attack(std):
    """Ruling: moving an opponent's token is not an attack. Tablet moves their 9 back 2 to 7, where my
    token stands: nothing is removed, their token stops on the nearest free tile, 8."""
    game = position(std, mine=[7], theirs=[9])
    _effect(std, game, 0, "Rosette: Tablet")
    assert game.S[MASK] == tiles(7) and game.S[PS + MASK] == tiles(8)
    assert game.S[PS + SUP] == 6 and game.S[CAPT] == 0


def test_nothing_moves_back_off_the_start(std):
    """Ruling: King of Beasts moves their token on 2 back 3: it stops on tile 1, not in the supply."""
    game = position(std, mine=[5], theirs=[2])
    _effect(std, game, 0, "Lion: King of Beasts")
    assert game.S[PS + MASK] == tiles(1) and game.S[PS + SUP] == 6


def test_nobody_scores_the_opponents_tokens():
    """Ruling: a forward push of the opponent's token on 12 by 5 stops on 14, it does not score."""
    cfg = with_cards(
        {"lion": [{"name": "Shove", "trigger": {"when": "own_roll"}, "effect": {"do": "move_opponent", "value": 5}}]}
    )
    game = position(cfg, mine=[1], theirs=[12])
    _effect(cfg, game, 0, "Lion: Shove")
    assert game.S[PS + MASK] == tiles(14) and game.S[PS + SCORED] == 0


def test_later_triggered_card_wins():
    """Rulings: contradicting cards, the later-triggered wins; at one moment the active player orders
    them (opponent's first, own last). I roll 2: the opponent's card sets my next roll to 0, mine sets
    it to 4 afterwards: 4."""
    cfg = with_cards(
        {
            "lion": [
                {
                    "name": "Freeze",
                    "trigger": {"when": "opponent_roll", "value": 2},
                    "effect": {"do": "set_opponent_next_roll", "value": 0},
                }
            ],
            "ibex": [
                {
                    "name": "Bound",
                    "trigger": {"when": "own_roll", "value": 2},
                    "effect": {"do": "set_next_roll", "value": 4},
                }
            ],
        }
    )
    game = position(cfg, mine=[1], roll=2)
    put_in_play(game.S, game.T.rules, 0, card(cfg, "Ibex: Bound"))
    put_in_play(game.S, game.T.rules, 1, card(cfg, "Lion: Freeze"))
    fire_both(game.S, game.T.rules, T_OWN_ROLL, T_OPP_ROLL, 2)
    resolve(game.S, game.T.rules)
    assert game.S[NEXT_ROLL] == 4


def test_cards_that_trigger_each_other_for_ever_are_an_error_not_a_silent_stop():
    """Two hand-written decks that set each other off without end: when a Lizard token is removed,
    the Lizard re-enters a token on 5 and attacks 6; when a Bull token is removed, the Bull re-enters
    a token on 6 and attacks 5. My Lizard token stands on 5 and the Bull's on 6, and the Bull's
    attack on 5 starts it: each round of the loop queues 4 activations (attack, re-enter, attack,
    re-enter) and removes the same two tokens again, so one moment never ends. The engine stops
    with an error after 64 activations instead of dropping the rest of the queue silently."""
    cfg = with_cards(
        {
            "lizard": [
                {"name": "Back", "trigger": {"when": "captured"}, "effect": {"do": "reenter", "value": 5}},
                {"name": "Bite", "trigger": {"when": "captured"}, "effect": {"do": "attack", "tiles": [6]}},
            ],
            "bull": [
                {"name": "Back", "trigger": {"when": "captured"}, "effect": {"do": "reenter", "value": 6}},
                {"name": "Horn", "trigger": {"when": "captured"}, "effect": {"do": "attack", "tiles": [5]}},
            ],
        }
    )
    game = position(cfg, mine=[5], theirs=[6])
    S = game.S
    for name in ("Lizard: Back", "Lizard: Bite"):
        put_in_play(S, game.T.rules, 0, card(cfg, name))
    for name in ("Bull: Back", "Bull: Horn"):
        put_in_play(S, game.T.rules, 1, card(cfg, name))
    with pytest.raises(ValueError, match="more than 64 card activations at one moment"):
        _effect(cfg, game, 1, "Bull: Horn")


def test_token_moved_off_its_rosette_loses_the_roll_again():
    """Ruling: my token lands on 4 (a rosette) and my card then moves it on to 5: no roll again,
    the turn passes (the opponent's forced 0 then passes back, so I am to move with my forced 1)."""
    cfg = with_cards(
        {"eagle": [{"name": "Drift", "trigger": {"when": "land_rosette"}, "effect": {"do": "extra_move", "value": 1}}]}
    )
    game = position(cfg, mine=[1], roll=3)
    S = game.S
    put_in_play(S, game.T.rules, 0, card(cfg, "Eagle: Drift"))
    S[PS + NEXT_ROLL] = 0
    S[NEXT_ROLL] = 1
    protocol.apply(game, decision(MOVE, 1))
    assert S[MASK] == tiles(5) and S[RAS] == 0 and S[PS + TURNS] == 1


def test_token_pushed_onto_a_rosette_earns_no_roll_again(std):
    """Ruling: Tablet pushes the opponent's 6 back onto their rosette 4: nobody gets a roll again."""
    game = position(std, mine=[1], theirs=[6])
    _effect(std, game, 0, "Rosette: Tablet")
    assert game.S[PS + MASK] == tiles(4) and game.S[RA_TILE] == 0


def test_eagle_triggers_instead_of_rolling(std):
    """Eagle: at the start of the turn, ROLL or TRIGGER; Talon Dive makes the opponent's next roll 0,
    and the Eagle may not trigger again before it has moved a token by a roll."""
    game = position(std, mine=[1], theirs=[2])
    S = game.S
    at_turn_start(game, [card(std, "Eagle: Talon Dive")])
    advance(S, game.T.rules, game.rng)
    kinds = {unpack(m)[0] for m in protocol.legal_moves(game)}
    assert kinds == {2, 3}  # ROLL, TRIGGER
    protocol.apply(game, decision(3, card(std, "Eagle: Talon Dive")))
    # the opponent rolled the forced 0 and passed; my next turn has no choice phase (locked)
    assert S[PS + TURNS] == 1 and S[ACTIVE] == 0 and S[PHASE] != 2


@pytest.mark.parametrize("start,scores", [(13, True), (1, False)])
def test_a_move_by_roll_frees_the_eagle_even_when_it_scores(std, start, scores):
    """cards.trigger_again_after: move. Last turn I triggered Talon Dive instead of rolling (LOCK set);
    this turn I rolled 2 and move my token from ``start``: from 13 it lands exactly on 15 and scores
    (Scoring), from 1 it lands on 3. Either way it is a token moved by a roll, so the lock is released:
    the opponent then rolls a forced 0 and passes, and at the start of my next turn I may again
    choose between rolling and triggering Talon Dive (the choice phase). Before the fix, the scoring
    move returned before the lock was cleared, so the next turn had no choice."""
    game = position(std, mine=[start], roll=2)
    S = game.S
    put_in_play(S, game.T.rules, 0, card(std, "Eagle: Talon Dive"))
    S[LOCK] = 1
    S[PS + NEXT_ROLL] = 0
    protocol.apply(game, decision(MOVE, start))
    assert S[SCORED] == (1 if scores else 0)
    assert S[MASK] == (0 if scores else tiles(3))
    assert S[LOCK] == 0
    assert S[PS + TURNS] == 1 and S[ACTIVE] == 0 and S[PHASE] == 2  # PH_CHOOSE: ROLL or TRIGGER
    assert {unpack(m)[0] for m in protocol.legal_moves(game)} == {2, 3}


def test_no_card_decisions_without_cards(plain):
    """Without cards, setup queues no card choice and play starts with seat 1's first move or pass."""
    game = urgency.new_game(plain, 2, 1)
    assert game.S[REQ_HEAD] == game.S[REQ_TAIL] == 0
    assert game.S[PHASE] == PH_MOVE


# ------------------------------------------------------------------------ setup: one copy of each deck


def test_a_random_deck_is_never_the_other_seats_deck(std):
    """Game Components: 7 animal decks, one copy each; Setup: each player selects one. The shipped
    variant's animal decks are ibex, bull, lion, tortoise, eagle, lizard (codes 1-6). Game seed 9's
    chance starts with the doubles 0.2661 and 0.4492 (child 0 of game_rngs(9)); a random seat is
    dealt int(u x k) of the k decks the other seat does not hold, in that order.
    - seat 1 random, seat 2 bull: seat 1 deals from [ibex, lion, tortoise, eagle, lizard]:
      int(0.2661 x 5) = 1, lion (drawing with replacement, int(0.2661 x 6) = 1, gave bull twice);
    - both random: seat 1 int(0.2661 x 6) = 1, bull; seat 2 from the five others, int(0.4492 x 5) = 2,
      tortoise (with replacement: int(0.4492 x 6) = 2, lion)."""
    bull = ANIMAL_DECKS.index("bull")
    game = urgency.new_game(std, 2, 9, decks=(-1, bull))
    assert deck_labels(game.S, True) == ["lion", "bull"]
    game = urgency.new_game(std, 2, 9)
    assert deck_labels(game.S, True) == ["bull", "tortoise"]


def test_two_random_seats_never_share_a_deck(std):
    """The issue's 200 greedy games of standard.yaml (seeds 0-199): 28 had one deck at both seats
    when each seat drew with replacement; now none, and seat 2 avoids an explicit seat 1 deck too."""
    for seed in range(200):
        a, b = urgency.play_game(std, ["greedy", "greedy"], seed).labels["deck"]
        assert a != b, seed
        assert urgency.play_game(std, ["greedy+eagle", "greedy"], seed).labels["deck"][1] != "eagle", seed


def test_kernel_created_games_deal_distinct_decks_too(std):
    """The compiled interface's own new game (ENGINE.new_state, what searches and the conformance
    tests start from) deals like urgency.new_game: it calls the same rules.new_state with the table's
    decks (-1, -1 under default_deck: random). Game seed 9: seat 1 int(0.2661 x 6) = 1, bull; seat 2
    from the five others, int(0.4492 x 5) = 2, tortoise (the derivation above). Over seeds 0-199 the
    two seats never share a deck, and each of the six decks is dealt to each seat at some seed."""
    from balancer.core.seeding import game_rngs

    T = urgency.ENGINE.compile(std, 2)
    assert T.decks.tolist() == [-1, -1]
    assert deck_labels(urgency.ENGINE.new_state(T, game_rngs(9)[0]), True) == ["bull", "tortoise"]
    seen: list[set[str]] = [set(), set()]
    for seed in range(200):
        a, b = deck_labels(urgency.ENGINE.new_state(T, game_rngs(seed)[0]), True)
        assert a != b, seed
        seen[0].add(a)
        seen[1].add(b)
    assert seen[0] == seen[1] == set(std.cards.animal_decks)


def test_one_deck_at_both_seats_is_allowed_and_said(std):
    """A mirror-deck table is a designer's experiment the printed game cannot deal: both seats named
    +bull play Bull, and table_note says so; tables whose decks differ (or are dealt) have no note."""
    assert urgency.play_game(std, ["greedy+bull", "random+bull"], 3).labels["deck"] == ["bull", "bull"]
    note = urgency.table_note(std, ["greedy+bull", "random+bull"])
    assert note and "Bull deck" in note and "one deck twice" in note and "printed game cannot" in note
    assert urgency.table_note(std, ["greedy", "greedy"]) is None
    assert urgency.table_note(std, ["greedy+bull", "greedy"]) is None
    assert urgency.table_note(std, ["greedy+bull", "greedy+ibex"]) is None
    fixed = std.model_copy(update={"default_deck": "lion"})  # plain seats of a fixed default deck
    assert "Lion deck" in urgency.table_note(fixed, ["greedy", "expectimax"])


def test_check_agent_names():
    assert urgency.check_agent("greedy") is None
    assert urgency.check_agent("expectimax+bull") is None
    for bad in ("greedy+", "greedy+dragon", "smart", "greedy+rosette"):
        msg = urgency.check_agent(bad)
        assert msg and "ibex" in msg and "expectimax" in msg


def test_deck_labels(std, plain):
    out = urgency.play_game(std, ["greedy+ibex", "random+lizard"], 5)
    assert out.labels == {"deck": ["ibex", "lizard"]}
    assert urgency.play_game(plain, ["greedy", "greedy"], 5).labels == {"deck": ["none", "none"]}


@pytest.mark.parametrize(
    "when,value,owner,expect",
    [
        # my token on 3 rolls 3 and lands on 6 (a centre tile) where the opponent stands: each trigger below
        # fires for its owner (0 = me, the active player; 1 = the opponent) and sets that owner's next roll to 3
        ("land_tile", 6, 0, 3),
        ("land_tile", 7, 0, -1),  # another tile: no
        ("land_centre", None, 0, 3),
        ("capture", None, 0, 3),
        ("captured", None, 1, 3),
        ("land_rosette", None, 0, -1),  # 6 is no rosette
    ],
)
def test_landing_triggers(when, value, owner, expect):
    cfg = with_cards(
        {
            "lizard": [
                {
                    "name": "Test",
                    "trigger": {"when": when, "value": value},
                    "effect": {"do": "set_next_roll", "value": 3},
                }
            ]
        }
    )
    game = position(cfg, mine=[3], theirs=[6], roll=3)
    S = game.S
    put_in_play(S, game.T.rules, owner, card(cfg, "Lizard: Test"))
    own_move(S, game.T.rules, 0, 3, 6, True)
    resolve(S, game.T.rules)
    assert S[owner * PS + NEXT_ROLL] == expect


@pytest.mark.parametrize("when,owner", [("score", 0), ("opponent_score", 1)])
def test_scoring_triggers(when, owner):
    """My token scores from 13 with a 2: ``score`` fires for me, ``opponent_score`` for the opponent."""
    cfg = with_cards(
        {"lizard": [{"name": "Test", "trigger": {"when": when}, "effect": {"do": "set_next_roll", "value": 3}}]}
    )
    game = position(cfg, mine=[13], roll=2)
    S = game.S
    put_in_play(S, game.T.rules, owner, card(cfg, "Lizard: Test"))
    own_move(S, game.T.rules, 0, 13, 15, True)
    resolve(S, game.T.rules)
    assert S[owner * PS + NEXT_ROLL] == 3 and S[(1 - owner) * PS + NEXT_ROLL] == -1


def test_turn_start_trigger(std):
    """Bull Bellow attacks 12 at the start of my turn: the opponent's token there is removed."""
    game = position(std, mine=[1], theirs=[12])
    S = game.S
    at_turn_start(game, [card(std, "Bull: Bellow")])
    S[NEXT_ROLL] = 0
    S[PS + NEXT_ROLL] = 0
    advance(S, game.T.rules, game.rng)
    assert S[PS + MASK] == 0 and S[PS + SUP] == 7
