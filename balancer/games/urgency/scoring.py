"""Urgency end of game (How to Win): tokens scored, the winner, and the per-seat metrics.

A game ends when a player has scored ``to_win`` tokens; that player wins. A game stopped by the
``cards.max_turns`` safety limit is won by the player with more tokens scored, equal counts share.
The score of a seat is its tokens scored, so the ranking of :func:`balancer.core.game.ranks_and_win_shares`
is the rulebook's winner.
"""

from __future__ import annotations

import numpy as np

from .rules import CAPT, CAPTURED_N, MASK, NPLAY, PS, RAS, SCORED, SUP, TURNS, popcount

METRICS: tuple[str, ...] = (
    "game_turns",
    "game_captures",
    "game_roll_agains",
    "captures",
    "captured",
    "roll_agains",
    "tokens_on_board",
    "cards_in_play",
)
"""Metrics. Per game (the same value on both seats, so the per-player mean is the per-game mean):
turns of both players, tokens removed by both, roll agains taken by both. Per seat: tokens this seat
removed (basic and special attacks), tokens of this seat removed, roll agains taken, tokens on the
board at the end, rule cards in play at the end."""


def final_rows(S: np.ndarray) -> dict[str, list[int]]:
    """Per-seat numbers of a finished game state: scored, turns and each of :data:`METRICS`."""
    v = S[: 2 * PS].tolist()  # plain ints: this runs once per game, outside numba
    rows: dict[str, list[int]] = {"scored": [], "turns": [], **{m: [] for m in METRICS}}
    for p in range(2):
        b = p * PS
        rows["scored"].append(v[b + SCORED])
        rows["turns"].append(v[b + TURNS])
        rows["captures"].append(v[b + CAPT])
        rows["captured"].append(v[b + CAPTURED_N])
        rows["roll_agains"].append(v[b + RAS])
        rows["tokens_on_board"].append(bin(v[b + MASK]).count("1"))
        rows["cards_in_play"].append(v[b + NPLAY])
    for name, per_seat in (("game_turns", "turns"), ("game_captures", "captures"), ("game_roll_agains", "roll_agains")):
        rows[name] = [sum(rows[per_seat])] * 2
    return rows


def tokens_accounted(S: np.ndarray, tokens: int) -> bool:
    """True when each player's supply + board + scored tokens make ``tokens`` (Setup: 7 each)."""
    return all(
        int(S[p * PS + SUP]) + popcount(int(S[p * PS + MASK])) + int(S[p * PS + SCORED]) == tokens for p in range(2)
    )
