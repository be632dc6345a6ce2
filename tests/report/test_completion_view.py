"""The run report says, at the top, how many games a safety stop ended, with replay commands (issue 29)."""

from __future__ import annotations

from balancer.report.render import completion_view

COMPLETION = {
    "games": 5000,
    "not_by_rules": 3,
    "confidence": 0.95,
    "win_rates_include_them": True,
    "by_cause": [
        {
            "cause": "turn_cap",
            "games": 3,
            "share": 0.0006,
            "ci_low": 0.000204,
            "ci_high": 0.001763,
            "text": "stopped at the turn cap before the game's end",
            "game_indices": [606, 1018, 2249],
            "labels": {"deck": {"eagle": 3, "ibex": 3}},
        }
    ],
}
META = {"agents": ["random", "random"], "seed": 0, "config_path": "configs/urgency/full-force.yaml"}


def test_stopped_games_are_listed_with_their_replay_commands():
    view = completion_view({"completion": COMPLETION}, META)
    assert view is not None
    assert view["lines"][0] == (
        "3 of 5,000 games (0.06%, 95% CI 0.02-0.18%) stopped at the turn cap before the game's end"
    )
    assert (
        "  replay game 1018: balancer play configs/urgency/full-force.yaml --players 2 --agents random,random "
        "--seed 0 --game-index 1018"
    ) in view["lines"]


def test_nothing_is_said_when_every_game_ended_by_the_rules():
    assert completion_view({"completion": {**COMPLETION, "not_by_rules": 0, "by_cause": []}}, META) is None
    assert completion_view({}, META) is None  # a summary written before completion existed
