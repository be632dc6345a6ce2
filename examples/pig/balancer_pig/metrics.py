"""Pig's score category and metrics: the ``score_*`` and ``metric_*`` columns of its results."""

from __future__ import annotations

from balancer.core.metrics import MetricSpec, MetricSpecs, categories, per_seat

METRICS = MetricSpecs(
    scores=categories("banked"),  # points banked by holding
    metrics=(
        MetricSpec("game_turns", "game", "count", "turns"),  # turns of all players: the same on every seat
        *per_seat("count", "turns", "busts"),  # turns this seat lost by rolling the bust face
    ),
)
