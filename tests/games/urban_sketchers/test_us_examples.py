"""The rulebook's worked examples (Examples: Travel, Sketch, Publish, Funding, Supply; Choose a Die
examples 01 and 02; the majority tie examples of final scoring 3) on positions set up by hand.

Every position is a fresh game whose table is then overwritten with the example's pieces; the moves
go through the protocol's ``apply``, which refuses an illegal move. Cards the examples need are
written into the compiled rules with ``dataclasses.replace`` (the deck's own cards keep their ids).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import us_reference as usref
from us_reference.rules import (
    B_EXTRA_THEME,
    B_LONGER,
    B_MONEY,
    EFFICIENT,
    FUNDING,
    IMP_PUBLISH,
    IMP_SKETCH,
    IMP_SUPPLY,
    IMP_TRAVEL,
    K_BONUS,
    K_BONUS_MONEY,
    K_END,
    K_EXTRA_THEME,
    K_FUND,
    K_IMPROVE,
    K_IMPROVE_MONEY,
    K_PICK,
    K_PLACE,
    K_RESOURCE,
    K_SKETCH,
    K_STEP,
    K_UNFLIP,
    K_WANDER,
    OPPORTUNIST,
    P_MAIN,
    P_RESOLVE,
    PUBLISH,
    SKETCH,
    SUPPLY,
    TRAVEL,
    WANDERER,
    WHITE,
    State,
    apply_move,
    efficient_options,
    legal_moves,
    new_state,
)
from us_reference.scoring import final_components, majority_points

from balancer.games import urban_sketchers as us

PENCIL, INK, PAINT, PAPER = range(4)
URBAN, GASTRONOMY, MONUMENTS, FOLKLORE = range(4)
AFRICA, AMERICA, ASIA = range(3)
RED, BLUE, YELLOW, GREEN = range(4)


def card(rules, cid, cost, discount=-1, bonus=0, region=-1, themes=()):
    """Rules with card ``cid`` replaced by the given one (cost: 4 resource counts)."""

    def put(seq, value):
        out = list(seq)
        out[cid] = value
        return tuple(out)

    return dataclasses.replace(
        rules,
        cost=put(rules.cost, tuple(cost)),
        cost_total=put(rules.cost_total, sum(cost)),
        discount=put(rules.discount, discount),
        bonus=put(rules.bonus, bonus),
        region=put(rules.region, region),
        themes=put(rules.themes, tuple(themes)),
    )


def tile_of(rules, kind):
    """The first bonus tile id of ``kind``."""
    return rules.tile_kind.index(kind)


def position(cfg, n, rules=None) -> State:
    """A game of n players in round 1, seat 1 to choose a die, empty hands, no money, empty
    Backpacks; dice: red 4, blue 1, yellow 2, green 3, white 5, 3, ..."""
    rules = rules or us.compiled(cfg, n)
    s = new_state(rules, np.random.default_rng(0))
    for p in range(n):
        s.discard.extend(s.hand[p])
        s.hand[p] = []
    s.phase, s.seat, s.first, s.tturn = P_MAIN, 0, 0, 0
    s.dice = [4, 1, 2, 3] + [5, 3, 6, 2, 1][: rules.n_white]
    s.dcol = [0, 1, 2, 3] + [WHITE] * rules.n_white
    s.dused = [False] * len(s.dice)
    s.occ = [[False] * n for _ in range(4)]
    s.cuser, s.cval = [-1] * 4, [0] * 4
    s.sup_occ = [False] * rules.n_supply
    return s


def play(s: State, *moves):
    for mv in moves:
        assert mv in legal_moves(s), f"{mv} is not legal; legal: {legal_moves(s)}"
        apply_move(s, mv)


def place(die, action, arg=0, opportunist=0):
    return (K_PLACE, die, action * 8 + arg, opportunist)


def take_from_deck(s: State, cid: int) -> int:
    """Move card cid from wherever it lies (deck, discard, board) out of play and return it."""
    for pile in (s.deck, s.discard):
        if cid in pile:
            pile.remove(cid)
            return cid
    if cid in s.board:
        s.board[s.board.index(cid)] = -1
        return cid
    raise AssertionError(f"card {cid} not found")


# --------------------------------------------------------------------------------------------------
# Examples: Travel


@pytest.mark.parametrize("improvement,paid", [(0, 8), (1, 6)])
def test_travel_example(us_cfg, improvement, paid):
    """Travel example: from S, one step clockwise to A (pick), two back to B (pick), Wanderer to C
    (pick), one step to D (pick): 4 cards + 4 steps = 8 money; the basic red improvement takes 2 off: 6."""
    s = position(us_cfg, 4)
    start, a, b, c, d = 3, 4, 2, 8, 9
    s.pos[0] = start
    s.money[0] = 10
    s.imp[0][IMP_TRAVEL] = improvement
    cards = {sp: s.board[sp] for sp in (a, b, c, d)}
    play(
        s,
        place(RED, TRAVEL),
        (K_STEP, a, 0, 0),
        (K_PICK, 0, 0, 0),
        (K_STEP, start, 0, 0),
        (K_STEP, b, 0, 0),
        (K_PICK, 0, 0, 0),
        (K_WANDER, c, 0, 0),
        (K_PICK, 0, 0, 0),
        (K_STEP, d, 0, 0),
        (K_PICK, 0, 0, 0),
        (K_END, 0, 0, 0),
    )
    assert s.money[0] == 10 - paid
    assert sorted(s.hand[0]) == sorted(cards.values())
    assert s.opp[0][WANDERER] == 0 and s.pos[0] == d
    assert all(x >= 0 for x in s.board), "the board is refilled after the Travel"
    assert s.seat == 1, "the turn passed"


def test_travel_cannot_spend_more_than_money_plus_discount(us_cfg):
    """Actions, Travel: every step and pick-up is paid; with 1 money and the basic red improvement
    (2 off) a traveller can pay for 3 (steps or cards), not a fourth."""
    s = position(us_cfg, 2)
    s.money[0], s.imp[0][IMP_TRAVEL] = 1, 1
    s.opp[0][WANDERER] = 0
    assert s.pos[0] == 0
    play(s, place(RED, TRAVEL), (K_STEP, 1, 0, 0), (K_PICK, 0, 0, 0), (K_STEP, 2, 0, 0))
    assert [m for m in legal_moves(s) if m[0] in (K_STEP, K_PICK)] == []
    play(s, (K_END, 0, 0, 0))
    assert s.money[0] == 0


# --------------------------------------------------------------------------------------------------
# Examples: Sketch


def test_sketch_example(us_cfg):
    """Sketch example, in the upper sketchbook holding a pencil-discount tile (2):
    card B (pencil + 2 ink, discount pencil): the tile covers the pencil, Efficient (1) the 2 ink: free;
    card A (2 pencil + paint, discount pencil): tile + B cover the pencils, pay 1 paint;
    card C (3 pencil, discount pencil): tile + B + A cover all three: free;
    3 cards in one sketchbook: 0 + 1 + 2 = 3 money. No bonus icon, but the basic blue improvement
    (3) gives one bonus tile: the money tile, into the same sketchbook (4)."""
    rules = us.compiled(us_cfg, 2)
    B, A, C = 0, 1, 2
    rules = card(rules, B, (1, 2, 0, 0), discount=PENCIL)
    rules = card(rules, A, (2, 0, 1, 0), discount=PENCIL)
    rules = card(rules, C, (3, 0, 0, 0), discount=PENCIL)
    s = position(us_cfg, 2, rules)
    for cid in (B, A, C):
        s.hand[0].append(take_from_deck(s, cid))
    disc_tile, money_tile = tile_of(rules, 0), tile_of(rules, B_MONEY)
    for t in (disc_tile, money_tile):
        if t in s.bag:
            s.bag.remove(t)
        if t in s.display:
            s.display[s.display.index(t)] = -1
    s.btiles[0][0] = [disc_tile]
    s.display[0] = money_tile
    s.bp[0] = [PAINT, PAPER]
    s.reserve[PAINT] -= 1
    s.reserve[PAPER] -= 1
    s.money[0] = 3
    s.imp[0][IMP_SKETCH] = 1
    ink_ink = INK * 4 + INK
    play(s, place(BLUE, SKETCH))
    assert (K_SKETCH, B, 0, -1) not in legal_moves(s), "B's two ink are not in the Backpack"
    play(s, (K_SKETCH, B, 0, ink_ink), (K_SKETCH, A, 0, -1), (K_SKETCH, C, 0, -1), (K_END, 0, 0, 0))
    assert s.phase == P_RESOLVE and s.p_bonus == 1
    play(s, (K_BONUS, 0, 0, 0))
    assert s.books[0][0] == [B, A, C]
    assert s.btiles[0][0] == [disc_tile, money_tile]
    assert s.bp[0] == [PAPER], "one resource (the paint) paid in all"
    assert s.money[0] == 0, "0 + 1 + 2 money for three cards in one sketchbook"
    assert s.opp[0][EFFICIENT] == 0
    assert s.display[0] >= 0, "the display is refilled"


def test_extra_card_money_is_counted_per_sketchbook(us_cfg):
    """Sketch: the 0, 1, 2 ... money is tracked separately for each sketchbook: two free cards in two
    sketchbooks cost 0 + 0; a second card in the first then costs 1."""
    rules = us.compiled(us_cfg, 2)
    for cid in (0, 1, 2):
        rules = card(rules, cid, (0, 0, 0, 0))
    s = position(us_cfg, 2, rules)
    for cid in (0, 1, 2):
        s.hand[0].append(take_from_deck(s, cid))
    s.money[0] = 1
    play(s, place(BLUE, SKETCH), (K_SKETCH, 0, 0, -1), (K_SKETCH, 1, 1, -1))
    assert s.money[0] == 1
    play(s, (K_SKETCH, 2, 0, -1))
    assert s.money[0] == 0


def test_sketchbook_holds_six_cards(us_cfg):
    """Personal Boards E: a sketchbook holds at most six cards."""
    rules = us.compiled(us_cfg, 2)
    for cid in range(7):
        rules = card(rules, cid, (0, 0, 0, 0))
    s = position(us_cfg, 2, rules)
    s.books[0][0] = [take_from_deck(s, cid) for cid in range(6)]
    s.hand[0] = [take_from_deck(s, 6)]
    play(s, place(BLUE, SKETCH))
    assert [m for m in legal_moves(s) if m[0] == K_SKETCH] == [(K_SKETCH, 6, 1, -1)]


def test_efficient_options():
    """Efficient: any two resources off one card; distinct results only."""
    assert efficient_options([0, 2, 0, 0], 2) == [(INK * 4 + INK, [0, 0, 0, 0])]
    assert sorted(code for code, _ in efficient_options([1, 1, 1, 0], 2)) == [1, 2, 6]
    assert efficient_options([0, 0, 1, 0], 2) == [(PAINT * 4 + PAINT, [0, 0, 0, 0])]
    assert efficient_options([0, 0, 0, 0], 2) == []


# --------------------------------------------------------------------------------------------------
# Examples: Publish


def test_publish_example(us_cfg):
    """Publish example: 5 cards (2 urban icons, 1 monuments icon, a longest region streak of 2), the
    extra-theme tile (A), the money tile (B) and the longer tile (C), the basic yellow improvement (D):
    16 points (5 + 1 cards), 10 money (5 + 1 + 4), Prestige 2 + 1 = 3 (space 3 gives an improvement),
    4 theme tiles (the fourth chosen between urban and monuments), Published track space 1 unflips
    an opportunity tile (E); the token advances; 5 cards and 3 tiles are discarded."""
    rules = us.compiled(us_cfg, 2)
    rules = card(rules, 0, (1, 0, 0, 0), region=AFRICA, themes=(URBAN,))
    rules = card(rules, 1, (1, 0, 0, 0), region=AFRICA)
    rules = card(rules, 2, (1, 0, 0, 0), region=ASIA, themes=(URBAN,))
    rules = card(rules, 3, (1, 0, 0, 0), region=AMERICA)
    rules = card(rules, 4, (1, 0, 0, 0), region=-1, themes=(MONUMENTS,))
    s = position(us_cfg, 2, rules)
    s.books[0][0] = [take_from_deck(s, cid) for cid in range(5)]
    tiles = [tile_of(rules, B_EXTRA_THEME), tile_of(rules, B_MONEY), tile_of(rules, B_LONGER)]
    for t in tiles:
        if t in s.bag:
            s.bag.remove(t)
        if t in s.display:
            s.display[s.display.index(t)] = s.bag.pop()
    s.btiles[0][0] = list(tiles)
    s.imp[0][IMP_PUBLISH] = 1
    s.opp[0][WANDERER] = 0
    discard_before = len(s.discard)
    play(s, place(YELLOW, PUBLISH, 0))
    assert s.vp[0] == 16
    assert s.money[0] == 10
    assert s.prestige[0] == 3
    assert (s.pubs[0], s.total_pub) == (1, 1)
    assert sorted(legal_moves(s)) == [(K_EXTRA_THEME, URBAN, 0, 0), (K_EXTRA_THEME, MONUMENTS, 0, 0)]
    play(s, (K_EXTRA_THEME, MONUMENTS, 0, 0))
    assert s.th_up[0] == [2, 0, 2, 0], "4 theme tiles"
    assert (K_IMPROVE, IMP_SUPPLY, 0, 0) in legal_moves(s), "Prestige space 3 grants an improvement"
    play(s, (K_IMPROVE, IMP_SUPPLY, 0, 0))
    assert legal_moves(s) == [(K_UNFLIP, WANDERER, 0, 0)], "Published space 1 unflips an opportunity tile"
    play(s, (K_UNFLIP, WANDERER, 0, 0))
    assert s.opp[0] == [1, 1, 1] and s.imp[0][IMP_SUPPLY] == 1
    assert s.books[0][0] == [] and s.btiles[0][0] == []
    assert len(s.discard) == discard_before + 5 and sorted(s.bdiscard) == sorted(tiles)
    assert s.seat == 1


def test_region_streak_is_broken_by_other_cards(us_cfg):
    """Publish step 5: Africa, Africa, none, Africa, Africa, Africa: the streak is 3, not 5; an
    Africa streak tile makes it 4."""
    from us_reference.rules import B_STREAK0, longest_streak

    rules = us.compiled(us_cfg, 2)
    regions = [AFRICA, AFRICA, -1, AFRICA, AFRICA, AFRICA]
    for cid, g in enumerate(regions):
        rules = card(rules, cid, (1, 0, 0, 0), region=g)
    assert longest_streak(rules, list(range(6)), []) == 3
    assert longest_streak(rules, list(range(6)), [tile_of(rules, B_STREAK0 + AFRICA)]) == 4
    assert longest_streak(rules, list(range(6)), [tile_of(rules, B_STREAK0 + ASIA)]) == 3


@pytest.mark.parametrize("needs_card,streak", [(True, 0), (False, 1)])
def test_a_streak_tile_needs_a_card_of_its_region(us_cfg, needs_card, streak):
    """Bonus Tiles and bonus_tiles.streak_needs_card (assumed true): a sketchbook of two cards
    without a region and an Asia streak tile. Read as lengthening an Asia streak that exists, the
    tile finds none: 0 Prestige spaces. Read the other way (false), it is a streak of 0 + 1 = 1."""
    from us_reference.rules import B_STREAK0, longest_streak

    cfg = us_cfg.model_copy(
        update={"bonus_tiles": us_cfg.bonus_tiles.model_copy(update={"streak_needs_card": needs_card})}
    )
    assert us_cfg.bonus_tiles.streak_needs_card is True
    rules = us.compiled(cfg, 2)
    for cid in range(2):
        rules = card(rules, cid, (1, 0, 0, 0), region=-1)
    assert longest_streak(rules, [0, 1], [tile_of(rules, B_STREAK0 + ASIA)]) == streak


@pytest.mark.parametrize("per,overflows", [("step", 2), ("advance", 1)])
def test_prestige_past_the_last_space_gives_money(us_cfg, per, overflows):
    """Publish step 5: "If your disc passes the last space on the track, gain 5 money every time
    that happens instead". One space before the last, an advance of 3 moves the disc onto the last
    space (its reward) and would pass it twice: tracks.prestige_overflow_per: step (assumed) pays
    2 x 5 = 10 money, once per advance pays 5."""
    from us_reference.rules import advance_prestige

    cfg = us_cfg.model_copy(update={"tracks": us_cfg.tracks.model_copy(update={"prestige_overflow_per": per})})
    assert us_cfg.tracks.prestige_overflow_per == "step"
    s = position(cfg, 2)
    last = len(s.rules.prestige_points) - 1
    s.prestige[0] = last - 1
    reward = s.rules.prestige_reward[last]
    advance_prestige(s, 0, 3)
    assert s.prestige[0] == last
    assert s.money[0] == overflows * us_cfg.tracks.prestige_overflow_money + (
        us_cfg.tracks.reward_money if reward == 2 else 0
    )


@pytest.mark.parametrize("beyond,money", [("extra", 7 + 5), ("instead", 6 + 5)])
def test_cards_beyond_six_earn_five_money_more(us_cfg, beyond, money):
    """Bonus Tiles, the longer tile: "considered one card longer when calculating Victory points
    and money. If the sketchbook has more than six cards, you earn an extra 5 money for each
    additional card." Six cards and a longer tile are 7 cards: the points of six (16), and with
    publish.beyond_six: extra (assumed) 7 x 1 money + 5 for the seventh = 12; read as instead of
    its card money, 6 x 1 + 5 = 11."""
    from us_reference.rules import book_money

    cfg = us_cfg.model_copy(update={"publish": us_cfg.publish.model_copy(update={"beyond_six": beyond})})
    assert us_cfg.publish.beyond_six == "extra"
    rules = us.compiled(cfg, 2)
    assert book_money(rules, list(range(6)), [tile_of(rules, B_LONGER)]) == (16, money)


def test_two_improvements_at_once_may_be_a_new_advanced_tile(us_cfg):
    """Improvement Tiles: with two improvements earned at once, a new tile may go on its advanced
    side (counting as both); else each is a basic tile, a flip to advanced, or 3 money."""
    s = position(us_cfg, 2)
    s.phase, s.acted, s.p_imp = P_RESOLVE, True, 2
    assert (K_IMPROVE, IMP_TRAVEL, 2, 0) in legal_moves(s)
    play(s, (K_IMPROVE, IMP_TRAVEL, 2, 0))
    assert s.imp[0][IMP_TRAVEL] == 2 and s.p_imp == 0 and s.seat == 1
    s = position(us_cfg, 2)
    s.phase, s.acted, s.p_imp = P_RESOLVE, True, 1
    s.imp[0] = [1, 1, 1, 1, 0]
    moves = legal_moves(s)
    assert (K_IMPROVE, IMP_SUPPLY, 0, 0) not in moves, "four spaces are full"
    assert (K_IMPROVE, IMP_TRAVEL, 1, 0) in moves and (K_IMPROVE_MONEY, 0, 0, 0) in moves
    play(s, (K_IMPROVE_MONEY, 0, 0, 0))
    assert s.money[0] == 3


# --------------------------------------------------------------------------------------------------
# Examples: Funding, Supply, Choose a Die


def test_funding_example(us_cfg):
    """Funding example: Pink used the green die (3); a white 5 would cost 2 money paid to Pink; with
    no money the player flips Opportunist and Pink gets the 2 from the bank. 4 + 1 (one published
    sketchbook) + 3 (one flipped theme tile of the funding theme) = 8 money."""
    s = position(us_cfg, 2)
    green, white5 = GREEN, 4
    s.dused[green] = True
    s.cuser[FUNDING], s.cval[FUNDING], s.occ[FUNDING][1] = 1, 3, True
    s.pubs[0], s.total_pub = 1, 1
    theme = s.theme_at[s.rules.funding_space]
    s.th_up[0][theme] = 1
    moves = legal_moves(s)
    assert place(white5, FUNDING) not in moves, "no money to pay Pink"
    assert place(white5, FUNDING, opportunist=1) in moves
    play(s, place(white5, FUNDING, opportunist=1))
    assert s.money[1] == 2 and s.opp[0][OPPORTUNIST] == 0
    play(s, (K_FUND, 1, 0, 0))
    assert s.money[0] == 8
    assert s.th_up[0][theme] == 0 and s.th_down[0][theme] == 1


def test_example_01_white_die_pays_the_coloured_die_user(us_cfg):
    """Choose a Die, example 01: Black used the red die (4) to travel; a white 3 on travel pays 1 to Black."""
    s = position(us_cfg, 4)
    s.seat, s.money[0] = 1, 0
    play(s, place(RED, TRAVEL), (K_END, 0, 0, 0))  # seat 2 (Black) travels with the red 4
    s.seat, s.money[0], s.money[1] = 0, 5, 0
    play(s, place(5, TRAVEL))  # seat 1: the white 3
    assert (s.money[0], s.money[1]) == (4, 1)


def test_example_02_white_die_pays_the_bank_against_the_tile(us_cfg):
    """Choose a Die, example 02: Black used the blue die on Supply, so a white die on sketch pays the
    bank the difference to the die tile beside the actions (a 4-point difference: 4 money)."""
    s = position(us_cfg, 2)
    s.act_tile = 2
    s.dice[4] = 6
    s.seat = 1
    play(s, place(BLUE, SUPPLY, 0), *[(K_END, 0, 0, 0)] * (1 if s.sup_tile[0] != 1 else 0))
    s.seat, s.money[0] = 0, 4
    play(s, place(4, SKETCH))
    assert s.money[0] == 0 and s.money[1] == 0
    s2 = position(us_cfg, 2)
    s2.act_tile, s2.dice[4], s2.money[0] = 2, 6, 3
    assert place(4, SKETCH) not in legal_moves(s2), "3 money cannot pay 4"


def test_supply_example(us_cfg):
    """Supply example: a 2 below the '5' tile gives 3 resources, the advanced purple improvement 2
    more: 5 resources of the player's choice."""
    s = position(us_cfg, 2)
    s.sup_tile[0] = 5
    s.imp[0][IMP_SUPPLY] = 2
    play(s, place(YELLOW, SUPPLY, 0))  # the yellow die shows 2
    for res in (PENCIL, PENCIL, INK, PAPER, PAPER):
        play(s, (K_RESOURCE, res, 0, 0))
    assert s.bp[0] == [PENCIL, PENCIL, INK, PAPER, PAPER]
    assert s.seat == 1 and s.reserve[PENCIL] == us_cfg.resources.per_type - 2


def test_full_backpack_loses_its_oldest_resource(us_cfg):
    """Personal Boards F: 12 spaces; a new resource pushes out the oldest (resources.full_backpack:
    discard_oldest, assumed: the rulebook lets the player discard 'older ones', no choice here)."""
    assert us_cfg.resources.full_backpack == "discard_oldest"
    s = position(us_cfg, 2)
    s.bp[0] = [INK] + [PENCIL] * 11
    s.reserve[INK] -= 1
    s.reserve[PENCIL] -= 11
    s.sup_tile[0] = 3
    play(s, place(RED, SUPPLY, 0), (K_RESOURCE, PAPER, 0, 0))  # red 4 on tile 3: one resource
    assert s.bp[0] == [PENCIL] * 11 + [PAPER] and s.reserve[INK] == us_cfg.resources.per_type


def test_bonus_tile_limit_and_money_instead(us_cfg):
    """Bonus Tiles: no tile in a sketchbook that has three; 1 money instead is always possible."""
    s = position(us_cfg, 2)
    full = [s.bag.pop() for _ in range(3)]
    s.btiles[0][0] = full
    s.phase, s.acted, s.p_bonus = P_RESOLVE, True, 1
    moves = legal_moves(s)
    assert all(m[2] == 1 for m in moves if m[0] == K_BONUS) and (K_BONUS_MONEY, 0, 0, 0) in moves
    play(s, (K_BONUS_MONEY, 0, 0, 0))
    assert s.money[0] == 1


# --------------------------------------------------------------------------------------------------
# final scoring


def test_majority_tie_examples():
    """Final scoring 3: two tie for first: (9 + 5) // 2 = 7 each, the next 2; a three-way tie:
    (9 + 5 + 2) // 3 = 5 each and nothing else; a tie for second: (5 + 2) // 2 = 3."""
    assert majority_points([4, 4, 1, 0], (9, 5, 2)) == [7, 7, 2, 0]
    assert majority_points([2, 2, 2, 1], (9, 5, 2)) == [5, 5, 5, 0]
    assert majority_points([5, 3, 3, 1], (9, 5, 2)) == [9, 3, 3, 0]
    assert majority_points([3, 3, 3, 3], (9, 5, 2)) == [4, 4, 4, 4]
    assert majority_points([0, 0], (9, 5, 2)) == [0, 0]


def final_scoring_position(us_cfg):
    """The hand-set 3-player end-of-game position of test_final_scoring_by_hand (also scored as text
    by test_us_rules.test_score_command_agrees_with_final_scoring)."""
    s = position(us_cfg, 3)
    s.th_up[0], s.th_down[0] = [1, 1, 1, 0], [1, 0, 0, 1]
    s.th_up[1] = [2, 0, 0, 3]
    s.th_up[2] = [0, 1, 0, 0]
    s.prestige[0] = 3
    s.money[0], s.bp[0], s.vp[0] = 12, [0, 1, 2], 16
    s.books[0][1] = [take_from_deck(s, 0), take_from_deck(s, 1)]
    return s


def test_final_scoring_by_hand(us_cfg):
    """End of the Game 1-5 on a hand-set 3-player position.
    Seat 1: themes 2/1/1/1 (a set: 7), Prestige space 3, 12 money + 3 resources + an unpublished
      2-card sketchbook (2 money) = 17 -> 3 points, 16 publishing points.
    Seat 2: themes 2/0/0/3; seat 3: themes 0/1/0/0.
    Majorities: urban 2, 2, 0 -> seats 1, 2 tie: 7 each; gastronomy 1, 0, 1 -> seats 1, 3: 7 each;
    monuments 1, 0, 0 -> seat 1: 9; folklore 1, 3, 0 -> seat 2: 9, seat 1: 5."""
    s = final_scoring_position(us_cfg)
    comps = final_components(s)
    assert comps["sets"] == [7, 0, 0]
    assert comps["majorities"] == [7 + 7 + 9 + 5, 7 + 9, 7]
    assert comps["prestige"][0] == us_cfg.tracks.prestige_points[3]
    assert comps["leftovers"] == [3, 0, 0]
    assert comps["publishing"] == [16, 0, 0]
    out = usref.reference_outcome(s)
    assert out.tiebreak == [(5,), (5,), (1,)]  # theme tiles: 2+1+1+1, 2+3, 1
