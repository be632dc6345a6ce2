"""Urban Sketchers rules, one rule per test, on hand-set positions (section names of the rulebook)."""

from __future__ import annotations

import numpy as np
import pytest
import us_reference as usref
import yaml
from test_us_examples import place, play, position
from typer.testing import CliRunner
from us_reference.agents import Weights, finish_turn
from us_reference.rules import (
    FUNDING,
    K_END,
    K_FUND,
    K_PASS,
    K_PLACE,
    K_SETUP_DISCARD,
    K_SETUP_DONE,
    K_THEME_PAIR,
    P_MAIN,
    P_OVER,
    P_RESOLVE,
    P_SETUP,
    P_TRAVEL,
    PUBLISH,
    SKETCH,
    SUPPLY,
    TRAVEL,
    legal_moves,
)

from balancer.cli import app
from balancer.config import ConfigError, load_config, resolve_yaml
from balancer.data import builtin_config
from balancer.games import urban_sketchers as us
from balancer.games.urban_sketchers.config import deck_distribution

BASE = builtin_config("urban_sketchers/base.yaml")
"""The shipped base variant (not conftest's name: a bare `from conftest import` takes whichever
conftest.py pytest imported first, e.g. tests/agents/'s when both folders run in one call)."""


def test_setup(us_cfg):
    """Set Up 2-10: dice tiles, five bonus tiles on display, a card on each travel space, five cards
    each, opportunity tiles face up; the Set Up 11 discards come first, seat by seat."""
    s = usref.new_reference_game(us_cfg, 3, 1)
    r = s.rules
    assert s.phase == P_SETUP and s.seat == 0
    assert len(s.sup_tile) == 4 and sorted([s.act_tile, *s.sup_tile]) == sorted(set([s.act_tile, *s.sup_tile]))
    assert all(t >= 0 for t in s.display) and len(s.display) == 5 and len(s.bag) == 25
    assert all(c >= 0 for c in s.board) and len(s.board) == 12
    assert [len(h) for h in s.hand] == [5, 5, 5] and len(s.deck) == 65 - 12 - 15
    assert s.opp == [[1, 1, 1]] * 3 and s.money == [0, 0, 0]
    assert sorted(s.theme_at) == [0, 1, 2, 3]
    assert r.n_white == 3
    assert s.imp_supply == [4] * 5  # improvements.per_type (assumed): 20 tiles, 4 of each of 5 types


def test_players_start_with_setup_money(us_cfg):
    """setup.money (assumed 0: Set Up hands out no money); a variant giving 3 starts everyone at 3."""

    pos = us.SPEC.new_game(us_cfg, 4, 2)
    assert us_cfg.setup.money == 0 and usref.to_reference(pos.S, pos.T).money == [0] * 4
    cfg = us_cfg.model_copy(update={"setup": us_cfg.setup.model_copy(update={"money": 3})})
    pos = us.SPEC.new_game(cfg, 4, 2)
    assert usref.to_reference(pos.S, pos.T).money == [3] * 4


def test_setup_discard_gives_printed_resources_up_to_12(us_cfg):
    """Set Up 11: a discarded card gives the resources printed on it, up to the Backpack's 12."""
    s = usref.new_reference_game(us_cfg, 2, 1)
    first = s.hand[0][0]
    play(s, (K_SETUP_DISCARD, first, 0, 0))
    assert len(s.bp[0]) == s.rules.cost_total[first] and first in s.discard
    s.bp[0] = [0] * 6 + [1] * 5
    s.reserve[0], s.reserve[1] = 16 - 6, 16 - 5
    second = s.hand[0][0]
    play(s, (K_SETUP_DISCARD, second, 0, 0))
    assert len(s.bp[0]) == 12
    play(s, (K_SETUP_DONE, 0, 0, 0))
    assert s.seat == 1 and s.phase == P_SETUP
    play(s, (K_SETUP_DONE, 0, 0, 0))
    assert s.phase == P_MAIN and s.seat == 0 and len(s.dice) == 5


def test_round_structure(us_cfg):
    """Round Structure: each of n players takes 2 turns in order from the First player; with one die
    left the round ends, new dice are rolled and the First player token passes clockwise."""
    s = position(us_cfg, 3)
    order = []
    for _ in range(6):
        order.append(s.seat)
        play(s, [m for m in legal_moves(s) if m[0] == K_PLACE][0])
        finish_turn(s, order[-1], Weights(us_cfg), np.random.default_rng(0))
    assert order == [0, 1, 2, 0, 1, 2]
    assert (s.round, s.first, s.seat) == (1, 1, 1)
    assert s.dused == [False] * 7


def test_colour_action_once_per_round_and_colours(us_cfg):
    """Choose a Die: a colour action takes its colour or a white die, on the player's own space,
    once per round."""
    s = position(us_cfg, 2)
    s.money[0] = 20
    moves = legal_moves(s)
    # the red die (0) only on travel, never on sketch; white dice anywhere
    assert place(0, TRAVEL) in moves and place(0, SKETCH) not in moves
    assert place(4, SKETCH) in moves and place(4, TRAVEL) in moves
    play(s, place(0, TRAVEL), (K_END, 0, 0, 0))
    s.seat = 0
    assert not [m for m in legal_moves(s) if m[0] == K_PLACE and m[2] >> 3 == TRAVEL]


def test_publish_needs_a_sketchbook_with_cards(us_cfg):
    """publish.min_cards (assumed 1): two empty sketchbooks cannot be published; with one card in
    sketchbook 2 only that one can. With min_cards 2, one card is not enough; two are."""
    assert us_cfg.publish.min_cards == 1
    s = position(us_cfg, 2)
    assert not [m for m in legal_moves(s) if m[0] == K_PLACE and m[2] >> 3 == PUBLISH]
    s.books[0][1] = [s.deck.pop()]
    pub = [m for m in legal_moves(s) if m[0] == K_PLACE and m[2] >> 3 == PUBLISH]
    assert pub and all(m[2] & 7 == 1 for m in pub)
    cfg = us_cfg.model_copy(update={"publish": us_cfg.publish.model_copy(update={"min_cards": 2})})
    s = position(cfg, 2)
    s.books[0][1] = [s.deck.pop()]
    assert not [m for m in legal_moves(s) if m[0] == K_PLACE and m[2] >> 3 == PUBLISH]
    s.books[0][1].append(s.deck.pop())
    assert [m for m in legal_moves(s) if m[0] == K_PLACE and m[2] >> 3 == PUBLISH]


def test_opportunist_pays_the_other_player_from_the_bank(us_cfg):
    """Opportunist: the placement is free; the player who would have been paid gets it from the bank."""
    s = position(us_cfg, 2)
    s.cuser[TRAVEL], s.cval[TRAVEL], s.dused[0], s.occ[TRAVEL][1] = 1, 1, True, True
    s.money[0] = 10
    play(s, place(4, TRAVEL, opportunist=1))  # white 5 vs red 1: 4
    assert (s.money[0], s.money[1]) == (10, 4) and s.st_paid_players[0] == 0


def test_funding_royalties_count_own_or_all(us_cfg):
    """Funding: 4 + 1 per published sketchbook; `count_published` own (the example) or all."""
    for mode, expected in (("own", 4 + 1), ("all", 4 + 3)):
        cfg = us_cfg.model_copy(update={"funding": us_cfg.funding.model_copy(update={"count_published": mode})})
        s = position(cfg, 2)
        s.pubs[0], s.pubs[1], s.total_pub = 1, 2, 3
        play(s, place(3, FUNDING), (K_FUND, 0, 0, 0))
        assert s.money[0] == expected


def test_theme_pair_benefits(us_cfg):
    """Theme Tiles: two different theme tiles of adjacent large-tile spaces flip for the benefit
    between them; each tile once; unflip only with a flipped opportunity tile; allowed during an
    action too (here: a bonus tile in the middle of a Travel)."""
    s = position(us_cfg, 2)
    r = s.rules
    kinds = {ben: (k, x, y) for k, (x, y, ben) in enumerate(r.pairs)}
    i, x, y = kinds[2]  # the Prestige pair
    a, b = s.theme_at[x], s.theme_at[y]
    s.th_up[0][a], s.th_up[0][b] = 1, 1
    play(s, (K_THEME_PAIR, i, 0, 0))
    assert s.prestige[0] == 1 and s.th_up[0][a] == 0 and s.th_down[0][a] == 1 and s.phase == P_MAIN
    assert (K_THEME_PAIR, i, 0, 0) not in legal_moves(s)
    j, ux, uy = kinds[0]  # the unflip pair
    s.th_up[0][s.theme_at[ux]] += 1
    s.th_up[0][s.theme_at[uy]] += 1
    assert not [m for m in legal_moves(s) if m[0] == K_THEME_PAIR], "nothing to unflip"
    s.opp[0][1] = 0
    assert [m for m in legal_moves(s) if m[0] == K_THEME_PAIR] == [(K_THEME_PAIR, j, 1, 0)]
    play(s, (K_THEME_PAIR, j, 1, 0))
    assert s.opp[0] == [1, 1, 1] and s.phase == P_MAIN and s.seat == 0
    k, bx, by = kinds[1]  # the bonus-tile pair, during a Travel
    s.th_up[0][s.theme_at[bx]] += 1
    s.th_up[0][s.theme_at[by]] += 1
    s.money[0] = 3
    play(s, place(0, TRAVEL))
    tile = s.display[2]
    play(s, (K_THEME_PAIR, k, 2, 1))
    assert s.btiles[0][1] == [tile] and s.display[2] >= 0 and s.phase == P_TRAVEL


def test_theme_pair_bonus_tile_or_one_money_instead(us_cfg):
    """Theme Tiles gives "a bonus tile"; Bonus Tiles: "When you gain a bonus tile ... Alternatively,
    instead of choosing a tile, you may gain 1 money". Seat 1 holds a face-up tile of each theme
    framing the bonus-tile benefit, 0 money, and both sketchbooks are full of bonus tiles (3 each):
    no tile can be placed, so the pair's only choice is the money, (K_THEME_PAIR, pair, -1, 0).
    Flipping it: money 0 + 1 = 1, both theme tiles face down, the display and the sketchbooks as
    they were. With room in sketchbook 2, the money comes first, then each display slot into
    sketchbook 2. The compiled engine lists and plays the same."""
    from balancer.games.urban_sketchers import fast

    s = position(us_cfg, 2)
    k, x, y = next((i, x, y) for i, (x, y, ben) in enumerate(s.rules.pairs) if ben == 1)
    a, b = s.theme_at[x], s.theme_at[y]
    s.th_up[0][a], s.th_up[0][b] = 1, 1
    s.btiles[0] = [[s.bag.pop() for _ in range(3)], [s.bag.pop() for _ in range(3)]]
    display, books = list(s.display), [list(t) for t in s.btiles[0]]
    pairs = [m for m in legal_moves(s) if m[0] == K_THEME_PAIR]
    assert pairs == [(K_THEME_PAIR, k, -1, 0)]
    lay, table = fast.compile_fast(s.rules)
    ws = fast.workspace(lay)
    buf = usref.load(s)
    m = fast.legal_moves(buf, lay, table, ws.sub, ws.opts)
    assert [tuple(int(v) for v in row) for row in ws.sub[:m] if row[0] == K_THEME_PAIR] == pairs
    play(s, (K_THEME_PAIR, k, -1, 0))
    fast.apply_move(buf, lay, table, K_THEME_PAIR, k, -1, 0, np.random.default_rng(0), ws.opts)
    assert s.money[0] == 1 and s.th_up[0][a] == s.th_up[0][b] == 0 and s.th_down[0][a] == s.th_down[0][b] == 1
    assert s.display == display and s.btiles[0] == books and s.phase == P_MAIN and s.seat == 0
    assert fast.views(buf, s.rules)["money"][0] == 1 and usref.from_buffer(buf, s.rules).th_down == s.th_down
    s = position(us_cfg, 2)
    s.th_up[0][a], s.th_up[0][b] = 1, 1
    s.btiles[0][0] = [s.bag.pop() for _ in range(3)]
    assert [m for m in legal_moves(s) if m[0] == K_THEME_PAIR] == (
        [(K_THEME_PAIR, k, -1, 0)] + [(K_THEME_PAIR, k, slot, 1) for slot in range(5)]
    )


def test_theme_pairs_are_flipped_at_the_players_own_decisions_only(us_cfg):
    """theme_board.pair_flips: own_decisions (assumed reading of "During your turn"). With a
    Prestige pair face up, seat 1 may flip it when choosing a die, but not while a bonus tile is
    being chosen (the pending choice); once the action is over the turn has passed to seat 2, whose
    decisions offer only seat 2's own pairs (none)."""
    assert us_cfg.theme_board.pair_flips == "own_decisions"
    s = position(us_cfg, 2)
    i, x, y = next((k, x, y) for k, (x, y, ben) in enumerate(s.rules.pairs) if ben == 2)
    s.th_up[0][s.theme_at[x]], s.th_up[0][s.theme_at[y]] = 1, 1
    assert (K_THEME_PAIR, i, 0, 0) in legal_moves(s)
    s.phase, s.acted, s.p_bonus = P_RESOLVE, True, 1
    assert not [m for m in legal_moves(s) if m[0] == K_THEME_PAIR]
    play(s, [m for m in legal_moves(s) if m[0] != K_THEME_PAIR][0])
    assert s.seat == 1 and not [m for m in legal_moves(s) if m[0] == K_THEME_PAIR]


def test_game_ends_after_the_round_in_which_the_token_reaches_its_space(us_cfg):
    """End of the Game: at 2 players the token reaching 6 ends the game once the round is over."""
    s = position(us_cfg, 2)
    s.total_pub = 5
    s.books[0][0] = [s.deck.pop()]
    play(s, place(2, PUBLISH, 0))
    while s.phase == P_RESOLVE:
        play(s, legal_moves(s)[0])
    assert s.end_triggered and s.phase == P_MAIN and s.seat == 1
    for _ in range(3):
        supply = [m for m in legal_moves(s) if m[0] == K_PLACE and m[2] >> 3 == SUPPLY]
        play(s, supply[0])
        while s.phase not in (P_MAIN, P_OVER):
            play(s, (K_END, 0, 0, 0))
    assert s.phase == P_OVER and legal_moves(s) == []


def test_pass_when_no_die_fits(us_cfg):
    """No placement possible (dice used, Supply full, no money for white): the player passes
    (dice.none_placeable: pass, assumed)."""
    assert us_cfg.dice.none_placeable == "pass"
    s = position(us_cfg, 2)
    s.dused = [True, True, True, True, False]
    s.sup_occ = [True] * len(s.sup_occ)
    s.opp[0][2] = 0
    s.act_tile = 1
    s.dice[4] = 6
    assert legal_moves(s) == [(K_PASS, 0, 0, 0)]
    play(s, (K_PASS, 0, 0, 0))
    assert s.seat == 1


def test_board_refill_reshuffles_the_discard_pile(us_cfg):
    """Travel: empty spaces are refilled from the deck; an empty deck takes back the discard pile."""
    s = position(us_cfg, 2)
    s.discard.extend(s.deck)
    s.deck = []
    s.money[0] = 5
    play(s, place(0, TRAVEL), (9 - 3, 0, 0, 0), (K_END, 0, 0, 0))  # K_PICK at the start space
    assert all(c >= 0 for c in s.board)


def test_deck_distribution_matches_the_table(us_cfg):
    """The card-distribution check counts the YAML table: 65 cards in every breakdown."""
    dist = deck_distribution(us_cfg)
    for name in ("total_cost", "discount", "region", "icons_per_card", "bonus_icon"):
        assert sum(dist[name].values()) == 65, name
    assert sum(dist["theme_icons"].values()) == sum(int(k) * v for k, v in dist["icons_per_card"].items())
    assert dist["region"] == {"africa": 16, "america": 16, "asia": 16, "none": 17}


def test_validate_prints_the_distribution():
    result = CliRunner().invoke(app, ["validate", str(BASE)])
    assert result.exit_code == 0, result.output
    assert "travel deck: 65 cards" in result.output and "region: africa 16" in result.output


def test_bad_card_is_refused_with_its_key(tmp_path):
    """A discount resource not in the card's cost is bad input: file and key named, exit 2."""
    deck = resolve_yaml(BASE).data["cards"]["deck"]
    deck[0] = {**deck[0], "cost": {"ink": 2}, "discount": "paper"}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"extends": str(BASE), "cards": {"deck": deck}}), encoding="utf-8")
    with pytest.raises(
        ConfigError,
        match=r"cards\.deck\[0\]\.discount: card id 1: the discount resource 'paper' must be part of the cost",
    ):
        load_config(bad)
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2 and "bad.yaml" in result.output


def test_score_command_agrees_with_final_scoring(us_cfg, tmp_path):
    """`balancer score` on end-of-game holdings: the position of test_final_scoring_by_hand written
    as text (money 12 + 2 from the unpublished sketchbook) gives the same components."""
    from test_us_examples import final_scoring_position
    from us_reference.scoring import final_components

    s = final_scoring_position(us_cfg)
    comps = final_components(s)
    text = (
        "vp=16 prestige=3 money=14 resources=3 themes=2,1,1,1   # seat 1\n"
        "vp=0 prestige=0 money=0 resources=0 themes=2,0,0,3\n\n"
        "vp=0 prestige=0 money=0 resources=0 themes=0,1,0,0\n"
    )
    scored = us.score_table_text(us_cfg, text)
    for seat in range(3):
        for name, values in comps.items():
            assert scored[f"seat_{seat + 1}_{name}"] == values[seat], (seat, name)
        assert scored[f"seat_{seat + 1}_total"] == sum(v[seat] for v in comps.values())
    path = tmp_path / "position.txt"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["score", str(BASE), str(path), "--json"])
    assert result.exit_code == 0 and '"seat_1_total": 57' in result.output
    path.write_text("vp=1 prestige=0 money=0 resources=0 themes=1,2\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["score", str(BASE), str(path)])
    assert result.exit_code == 2 and "line 1: themes= needs 4 whole numbers" in result.output
    with pytest.raises(ValueError, match="1 player lines"):
        us.score_table_text(us_cfg, "vp=1 prestige=0 money=0 resources=0 themes=1,0,0,0")


@pytest.mark.parametrize(
    "section,values,key",
    [
        # nine Supply spaces would need the space number 8 in a die placement, which the move encoding
        # action * 8 + space reads as another action (the compiled engine wrote past its arrays)
        (
            "dice_tiles",
            {"values": list(range(1, 11)), "supply_spaces": {"2": 9, "3": 4, "4": 5}},
            r"dice_tiles\.supply_spaces\.2: input should be less than or equal to 8",
        ),
        ("dice", {"white": {"2": -1, "3": 3, "4": 5}}, r"dice\.white\.2: input should be greater than or equal to 0"),
        # the token's space 0 would divide by zero in the greedy value (share of the game gone)
        (
            "end",
            {"total_published": {"2": 0, "3": 9, "4": 12}},
            r"end\.total_published\.2: input should be greater than or equal to 1",
        ),
        # a connection to a space the board does not have: every game raised IndexError
        (
            "travel_board",
            {"spaces": 4, "edges": [[0, 1], [1, 2], [2, 3], [3, 20]]},
            r"travel_board\.edges\[3\]: \[3, 20\] must be two different spaces 0-3",
        ),
        # a name twice: a card's cost counted in both slots of the name, or a region never reachable
        ("regions", ["africa", "america", "africa"], r"regions: africa named more than once"),
        (
            "travel_board",
            {"spaces": 4, "edges": [[0, 1, 2], [2, 3]]},
            r"travel_board\.edges.*\[0\]: list should have at most 2 items",
        ),
    ],
)
def test_numbers_the_engines_cannot_play_are_refused(tmp_path, section, values, key):
    """A variant the engines cannot play is bad input at load time (file and key named, exit 2),
    not a crash or a wrong game later."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"extends": str(BASE), section: values}), encoding="utf-8")
    with pytest.raises(ConfigError, match=key):
        load_config(bad)
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2 and "bad.yaml" in result.output


def test_transcript_lines_use_the_variants_names_and_numbers(us_cfg):
    """`balancer play` lines name what the YAML names: a card by its ``id`` (here the deck's ids
    plus 100, so card index 0 is card 101), a bonus tile by its mix kind (kind code 3 is
    ``discount_paper``, code 5 ``streak_america``), and the variant's money for a skipped bonus tile
    (2) or improvement (7)."""
    from us_reference.describe import describe
    from us_reference.rules import K_BONUS, K_BONUS_MONEY, K_IMPROVE_MONEY, K_SKETCH

    from balancer.games.urban_sketchers import kernel

    deck = [c.model_copy(update={"id": c.id + 100}) for c in us_cfg.cards.deck]
    v = us_cfg.model_copy(
        update={
            "cards": us_cfg.cards.model_copy(update={"deck": deck}),
            "sketch": us_cfg.sketch.model_copy(update={"money_instead_of_bonus": 2}),
            "tracks": us_cfg.tracks.model_copy(update={"improvement_money": 7}),
        }
    )
    s = usref.new_reference_game(v, 2, 1)
    kinds = s.rules.tile_kind
    s.display[0], s.display[1] = kinds.index(3), kinds.index(5)
    T = kernel.compile(v, 2)
    S = usref.load(s)
    for move, text in [
        ((K_SKETCH, 0, 1, -1), "sketches card 101 into sketchbook 2"),
        ((K_SETUP_DISCARD, 4, 0, 0), "discards card 105 for its resources"),
        ((K_BONUS, 0, 0, 0), "takes bonus tile discount_paper into sketchbook 1"),
        ((K_BONUS, 1, 0, 0), "takes bonus tile streak_america into sketchbook 1"),
        ((K_BONUS_MONEY, 0, 0, 0), "takes 2 money instead of a bonus tile"),
        ((K_IMPROVE_MONEY, 0, 0, 0), "takes 7 money instead of an improvement"),
    ]:
        assert kernel.describe(S, T, move) == describe(s, move, v) == text
