"""Urgency end of game (How to Win): tokens scored, the winner, and the per-seat metrics.

A game ends when a player has scored ``to_win`` tokens; that player wins. A game stopped by the
``cards.max_turns`` safety limit is won by the player with more tokens scored, equal counts share.
The score of a seat is its tokens scored, so the ranking of :func:`balancer.core.game.ranks_and_win_shares`
is the rulebook's winner.
"""

from __future__ import annotations

import numpy as np

from .rules import CAPT, CAPTURED_N, MASK, MAX_TOKENS, NPLAY, PS, RAS, SCORED, SCORED_AT, SUP, TURNS, popcount

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


def standings(scored_at: np.ndarray, scored: np.ndarray, turns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The trajectories of ``g`` finished games (issue 49): each seat's tokens scored (its score, public
    all game) at the end of every round (round r: game turns 2r - 1 and 2r, seat 1 then seat 2), the
    last checkpoint the game's end (a last round that seat 2 did not play ends there, as at the
    ``cards.max_turns`` stop), so the last checkpoint is the final score.

    ``scored_at``: int64[g, 2, MAX_TOKENS], the round each seat's tokens scored in, in order (the
    ``SCORED_AT`` slots of :func:`~.rules.score_token`); ``scored``: int64[g, 2], tokens scored (the
    slots read); ``turns``: int64[g, 2], turns taken. Returns (float64[g, K, 2], NaN after a game's
    last checkpoint; int64[g], each game's checkpoints: the rounds it lasted, max(turns) >= 1), K the
    most rounds of any game."""
    scored_at = np.asarray(scored_at, np.int64).reshape(-1, 2, MAX_TOKENS)
    g = scored_at.shape[0]
    rounds = np.maximum(np.asarray(turns, np.int64).reshape(g, 2).max(axis=1), 1)
    k = int(rounds.max(initial=1))
    kept = np.arange(MAX_TOKENS)[None, None, :] < np.asarray(scored, np.int64).reshape(g, 2)[:, :, None]
    game, seat, _ = np.nonzero(kept)
    # a histogram of scoring rounds per game and seat, summed over the rounds: tokens scored by each round's end
    flat = (game * k + np.clip(scored_at[kept], 1, k) - 1) * 2 + seat
    counts = np.bincount(flat, np.ones(flat.shape[0]), minlength=g * k * 2)  # float64 at once, int64 when empty
    out = counts.astype(np.float64, copy=False).reshape(g, k, 2)
    np.cumsum(out, axis=1, out=out)
    out[np.arange(k)[None, :] >= rounds[:, None]] = np.nan
    return out, rounds


def state_standings(S: np.ndarray) -> list[list[float]]:
    """:func:`standings` of one finished game's state ``S``, as ``Outcome.standings`` holds it."""
    at = np.stack([S[SCORED_AT + MAX_TOKENS * p : SCORED_AT + MAX_TOKENS * (p + 1)] for p in range(2)])
    out, rounds = standings(at[None], S[[SCORED, PS + SCORED]][None], S[[TURNS, PS + TURNS]][None])
    return out[0, : int(rounds[0])].tolist()
