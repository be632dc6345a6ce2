"""Urban Sketchers' assumed rulings that the audit found unmarked (issue 29): named choices of the
YAML (``final_scoring.unpublished_money``, ``final_scoring.tie``), on the hand-set final-scoring
position of test_us_examples.py; and the ``end.max_rounds`` safety cap recorded as ``turn_cap``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import us_reference as usref
from test_us_examples import final_scoring_position
from test_us_kernel import load
from us_reference.scoring import unpublished_money

from balancer.config import assumed_notes, resolve_yaml
from balancer.core import protocol
from balancer.games import urban_sketchers as us
from balancer.games.urban_sketchers import kernel
from balancer.games.urban_sketchers.fast import G_END

BASE = Path(__file__).resolve().parents[3] / "configs" / "urban_sketchers" / "base.yaml"


def test_the_choices_are_named_and_assumed(us_cfg):
    assert us_cfg.final_scoring.unpublished_money == "sketchbook_money_only"
    assert us_cfg.final_scoring.tie == "shared"
    note = next(n for n in assumed_notes(resolve_yaml(BASE).data) if n.startswith("final_scoring:"))
    assert "unpublished_money:" in note and "tie:" in note


def test_an_unpublished_sketchbook_earns_only_its_own_money(us_cfg):
    """Seat 1's unpublished 2-card sketchbook gives 2 money (its cards' money, as published), and
    nothing from the Published sketchbooks track, which it never advances: the leftovers 12 money
    + 3 resources + 2 = 17 give 3 points."""
    s = final_scoring_position(us_cfg)
    assert unpublished_money(s, 0) == 2
    assert usref.reference_outcome(s).components["leftovers"][0] == 3


def test_a_tie_on_points_and_theme_tiles_is_shared(us_cfg):
    """Seats 1 and 2 level on points (57 each: seat 2 + 41 publishing points) and on theme tiles (5
    each): they share the victory, 1/2 each."""
    s = final_scoring_position(us_cfg)
    s.vp[1] += 41
    T = kernel.compile(us_cfg, 3)
    S = load(T, s)
    r = np.zeros(3)
    kernel.returns(S, T, r)
    assert r.tolist() == [0.5, 0.5, 0.0]


def test_the_round_cap_is_recorded_as_the_turn_cap(us_cfg):
    """The worked position, finished: with the end triggered by the Total published token the game
    ended by the rules; without it (the end.max_rounds safety cap), by the turn cap."""
    s = final_scoring_position(us_cfg)
    T = kernel.compile(us_cfg, 3)
    S = load(T, s)
    S[G_END] = 1
    assert kernel.ENGINE.outcome(S, T).ended_by == "rules"
    S[G_END] = 0
    assert kernel.ENGINE.outcome(S, T).ended_by == "turn_cap"
    assert kernel.KERNEL.ended_by(S, T) == 1


def _later_seat(us_cfg):
    fs = us_cfg.final_scoring.model_copy(update={"tie": "later_seat"})
    return us_cfg.model_copy(update={"final_scoring": fs})


def test_a_tie_on_points_and_theme_tiles_goes_to_the_later_seat_under_later_seat(us_cfg):
    """final_scoring.tie: later_seat: the position above, seats 1 and 2 level on 57 points and 5
    theme tiles; seat 2 is later in turn order and wins alone: shares [0, 1, 0], in the compiled
    kernel and in the reference (whose tie-break keys gain the seat index: (5, 0) < (5, 1))."""
    cfg = _later_seat(us_cfg)
    s = final_scoring_position(cfg)
    s.vp[1] += 41
    T = kernel.compile(cfg, 3)
    S = load(T, s)
    r = np.zeros(3)
    kernel.returns(S, T, r)
    assert r.tolist() == [0.0, 1.0, 0.0]
    assert usref.reference_outcome(s).tiebreak[:2] == [(5, 0), (5, 1)]
    assert kernel.ENGINE.outcome(S, T).tiebreak[:2] == [(5, 0), (5, 1)]
    keys = kernel._tiebreak_keys(np.array([[5, 5, 3]]), True)
    assert keys.tolist() == [[[5, 0], [5, 1], [3, 2]]]


def _capped(us_cfg, rounds: int):
    return us_cfg.model_copy(update={"end": us_cfg.end.model_copy(update={"max_rounds": rounds})})


@pytest.mark.parametrize("rounds", [2, 5])
def test_a_replay_stopped_by_the_round_cap_shows_where_progress_stopped(us_cfg, rounds):
    """end.max_rounds 2 or 5: three greedy players (about 10 rounds to the Total published token)
    are stopped after that round, so the game ends by the turn cap and the transcript says so, names
    the round of the last change of points, prestige or published count (1..rounds, or none) and shows
    one line per seat. The position shown is the one after that change: by definition none of points,
    prestige, published changes after it, so each seat's line shows the finished state's values of
    those three (money and hand may still have moved, so they are not compared)."""
    cfg = _capped(us_cfg, rounds)
    text = us.transcript(cfg, ["greedy"] * 3, 0)
    assert "Ended by: the turn cap (end.max_rounds), not the rules" in text
    tail = text[text.index("Progress stopped") :].splitlines()
    named = tuple(f"Progress stopped in round {r}," for r in range(1, rounds + 1))
    assert tail[0].startswith((*named, "Progress stopped at the start"))
    assert [row.split(":")[0] for row in tail[1:]] == ["  seat 1", "  seat 2", "  seat 3"]
    pos = us.SPEC.new_game(cfg, 3, 0)
    players = [us.make_agent(cfg, "greedy") for _ in range(3)]
    _, rng = us.game_rngs(0)
    while not protocol.is_over(pos):
        protocol.apply(pos, players[pos.seat_to_move].choose(pos, pos.seat_to_move, rng))
    S, L = pos.S, pos.T.L
    for p, row in enumerate(tail[1:]):
        assert row.startswith(f"  seat {p + 1}: points {S[L.o_vp + p]}, prestige {S[L.o_prestige + p]}, ")
        assert f", published {S[L.o_pubs + p]}, " in row


def test_a_game_ended_by_the_rules_has_no_stall_lines(us_cfg):
    """The base cap (80 rounds) is never reached by greedy players: no "Ended by" line."""
    text = us.transcript(us_cfg, ["greedy"] * 3, 0)
    assert "Ended by" not in text and "Progress stopped" not in text


def test_stall_lines_without_progress_name_the_start():
    assert us.stall_lines(0, ["seat 1: x"])[1].startswith("Progress stopped at the start")
    assert us.stall_lines(3, ["seat 1: x"])[1].startswith("Progress stopped in round 3,")


def _with_track_money(us_cfg):
    fs = us_cfg.final_scoring.model_copy(update={"unpublished_money": "with_track_money"})
    return us_cfg.model_copy(update={"final_scoring": fs})


@pytest.mark.parametrize(
    "pubs,money,leftovers",
    [(2, 2 + 5, 4), (0, 2, 3)],
)
def test_an_unpublished_sketchbook_earns_track_money_under_with_track_money(us_cfg, pubs, money, leftovers):
    """final_scoring.unpublished_money: with_track_money, the worked position: seat 1's unpublished
    2-card sketchbook gives its 2 money and, as the publication it would be, advances seat 1 one space
    on the Published sketchbooks track. With 2 published it would reach space 3, a money reward
    (reward_money 5): 2 + 5 = 7, leftovers (12 money + 3 resources + 7) // 5 = 4 points. With 0
    published it reaches space 1, an unflip reward, no money: 2, leftovers 17 // 5 = 3 as under the
    default. The compiled kernel and the reference engine agree; the default gives 2 and 3 either way."""
    cfg = _with_track_money(us_cfg)
    s = final_scoring_position(cfg)
    s.pubs[0] = pubs
    assert unpublished_money(s, 0) == money
    assert usref.reference_outcome(s).components["leftovers"][0] == leftovers
    T = kernel.compile(cfg, 3)
    assert kernel.ENGINE.outcome(load(T, s), T).components["leftovers"][0] == leftovers
    d = final_scoring_position(us_cfg)
    d.pubs[0] = pubs
    assert unpublished_money(d, 0) == 2
    Td = kernel.compile(us_cfg, 3)
    assert kernel.ENGINE.outcome(load(Td, d), Td).components["leftovers"][0] == 3
