"""Urgency invariants over many random games (hypothesis; issue #5 "Done when"): each player always
has 7 tokens (supply + board + scored), no two own tokens share a tile (the board is a bit mask per
player, so a move onto an own token would lose a token and break the count), every game ends."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from balancer.config import load_config
from balancer.core import protocol
from balancer.core.seeding import game_rngs, game_seed
from balancer.games import urgency
from balancer.games.urgency.rules import MASK, PS, SCORED, SUP
from balancer.games.urgency.scoring import tokens_accounted

ROOT = Path(__file__).resolve().parents[3]
VARIANTS = ("standard", "no-cards", "first-pile", "set-in-stone", "full-force")
CONFIGS = {v: load_config(ROOT / "configs" / "urgency" / f"{v}.yaml") for v in VARIANTS}
AGENTS = [f"{a}+{d}" for a in ("random", "greedy") for d in ("ibex", "bull", "lion", "tortoise", "eagle", "lizard")]


def seated(cfg, names: list[str]) -> list[str]:
    """The agent names for ``cfg``: without cards a seat has no deck, so the ``+deck`` is dropped."""
    return names if cfg.cards.enabled else [n.partition("+")[0] for n in names]


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32), a=st.sampled_from(AGENTS), b=st.sampled_from(AGENTS)
)
def test_tokens_conserved_and_games_end(variant, seed, a, b):
    cfg = CONFIGS[variant]
    players = [urgency.make_agent(cfg, name) for name in seated(cfg, [a, b])]
    game = urgency.new_game(cfg, 2, game_seed(seed, 0), decks=(players[0].deck, players[1].deck))
    _, rng = game_rngs(game_seed(seed, 0))
    for _ in range(urgency.MAX_MOVES):
        assert tokens_accounted(game.S, cfg.tokens)
        for p in range(2):
            assert 0 <= game.S[p * PS + SUP] <= cfg.tokens and game.S[p * PS + MASK] & 1 == 0
            assert game.S[p * PS + MASK] >> 15 == 0
        if protocol.is_over(game):
            break
        seat = game.seat_to_move
        move = players[seat].choose(game, seat, rng)
        assert protocol.is_legal_move(game, move)
        protocol.apply(game, move)
    assert protocol.is_over(game), "game did not end"
    scored = [int(game.S[p * PS + SCORED]) for p in range(2)]
    assert max(scored) == cfg.to_win or sum(protocol.outcome(game).turns) >= cfg.cards.max_turns


@pytest.mark.parametrize("variant", VARIANTS)
def test_fast_path_matches_stepping(variant):
    """play_game (one compiled call) and the step-by-step protocol play the same game with decks."""
    cfg = CONFIGS[variant]
    for seed, table in ((1, ["greedy+bull", "expectimax+eagle"]), (2, ["random+tortoise", "greedy+lion"])):
        table = seated(cfg, table)
        players = [urgency.make_agent(cfg, a) for a in table]
        game = urgency.new_game(cfg, 2, game_seed(seed, 0), decks=(players[0].deck, players[1].deck))
        _, rng = game_rngs(game_seed(seed, 0))
        while not protocol.is_over(game):
            seat = game.seat_to_move
            protocol.apply(game, players[seat].choose(game, seat, rng))
        assert protocol.outcome(game) == urgency.play_game(cfg, table, game_seed(seed, 0))
