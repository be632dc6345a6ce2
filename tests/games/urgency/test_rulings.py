"""Urgency's assumed rulings that the audit found unmarked (issue 29), each a named choice of
``cards`` in the YAML (``push_token``, ``reenter_occupied``), tested from hand-set positions."""

from __future__ import annotations

from balancer.config import assumed_notes, resolve_yaml
from balancer.games.urgency.rules import MASK, PS, SUP, apply_effect, push_token, resolve

from .test_rules import STANDARD, card, position, std, tiles  # noqa: F401  (std: a fixture)


def test_the_choices_are_named_and_assumed(std):  # noqa: F811
    assert std.cards.push_token == "stop_at_1_and_14_nearest_free"
    assert std.cards.reenter_occupied == "nothing"
    note = next(n for n in assumed_notes(resolve_yaml(STANDARD).data) if n.startswith("cards:"))
    assert "(6) push_token" in note and "(7) reenter_occupied" in note


def test_push_token_stops_at_tile_1_and_14(std):  # noqa: F811
    """A token on 3 pushed back 5 stops at tile 1 (3 - 5 = -2, clamped); one on 12 pushed on 5 stops
    at 14 (12 + 5 = 17, clamped: nobody scores by a push)."""
    game = position(std, mine=[3, 12])
    assert push_token(game.S, game.T.rules, 0, 3, -5) == 1
    assert push_token(game.S, game.T.rules, 0, 12, 5) == 14
    assert game.S[MASK] == tiles(1, 14)


def test_push_token_skips_to_the_nearest_free_tile_back_towards_its_start(std):  # noqa: F811
    """Own tokens on 1 and 2: a token on 6 pushed back 6 aims at 1 (clamped), taken, then 2, taken,
    and stops on 3; with 3 to 5 taken as well it would stay on 6 (here: a token on 4 pushed back 3
    with 1, 2 and 3 taken stays on 4)."""
    game = position(std, mine=[1, 2, 6])
    assert push_token(game.S, game.T.rules, 0, 6, -6) == 3
    assert game.S[MASK] == tiles(1, 2, 3)
    game = position(std, mine=[1, 2, 3, 4])
    assert push_token(game.S, game.T.rules, 0, 4, -3) == 4
    assert game.S[MASK] == tiles(1, 2, 3, 4)


def test_reenter_aimed_at_an_occupied_tile_does_nothing(std):  # noqa: F811
    """Rosette: Scarab re-enters a token on tile 4. With an own token on 4, nothing happens: the board
    and the supply (7 - 1 = 6) stay; with tile 4 free the token comes in (supply 5, tiles 4 and 9)."""
    game = position(std, mine=[4], theirs=[])
    apply_effect(game.S, game.T.rules, 0, card(std, "Rosette: Scarab"))
    resolve(game.S, game.T.rules)
    assert game.S[MASK] == tiles(4) and game.S[SUP] == 6
    game = position(std, mine=[9], theirs=[])
    apply_effect(game.S, game.T.rules, 0, card(std, "Rosette: Scarab"))
    resolve(game.S, game.T.rules)
    assert game.S[MASK] == tiles(4, 9) and game.S[SUP] == 5
    assert game.S[PS + MASK] == 0


def _choose(cfg, **choices):
    """``cfg`` with some ``cards`` choices replaced."""
    return cfg.model_copy(update={"cards": cfg.cards.model_copy(update=choices)})


def test_push_token_stays_when_its_target_is_taken_under_or_stay(std):  # noqa: F811
    """push_token: stop_at_1_and_14_or_stay: own tokens on 1 and 2, a token on 6 pushed back 6 aims
    at 1 (clamped), which is taken: it stays on 6 (where nearest_free would take it to 3). A free
    target is reached as before: a token on 6 pushed back 2 lands on 4; the clamp still holds (12 + 5
    stops at 14)."""
    cfg = _choose(std, push_token="stop_at_1_and_14_or_stay")
    game = position(cfg, mine=[1, 2, 6, 12])
    assert push_token(game.S, game.T.rules, 0, 6, -6) == 6
    assert game.S[MASK] == tiles(1, 2, 6, 12)
    assert push_token(game.S, game.T.rules, 0, 6, -2) == 4
    assert push_token(game.S, game.T.rules, 0, 12, 5) == 14
    assert game.S[MASK] == tiles(1, 2, 4, 14)


def test_reenter_aimed_at_an_occupied_tile_enters_behind_it_under_nearest_free_behind(std):  # noqa: F811
    """reenter_occupied: nearest_free_behind: Rosette: Scarab re-enters a token on tile 4. Own tokens
    on 4 and 3: the nearest tile behind 4 free for the player is 2, so the token comes in there
    (supply 7 - 2 - 1 = 4, tiles 2, 3, 4). With 1 to 4 all taken there is none: nothing happens
    (supply 3 stays)."""
    cfg = _choose(std, reenter_occupied="nearest_free_behind")
    game = position(cfg, mine=[3, 4], theirs=[])
    apply_effect(game.S, game.T.rules, 0, card(cfg, "Rosette: Scarab"))
    resolve(game.S, game.T.rules)
    assert game.S[MASK] == tiles(2, 3, 4) and game.S[SUP] == 4
    game = position(cfg, mine=[1, 2, 3, 4], theirs=[])
    apply_effect(game.S, game.T.rules, 0, card(cfg, "Rosette: Scarab"))
    resolve(game.S, game.T.rules)
    assert game.S[MASK] == tiles(1, 2, 3, 4) and game.S[SUP] == 3
