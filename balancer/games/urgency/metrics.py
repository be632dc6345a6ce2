"""Urgency's score category and metrics (:mod:`balancer.core.metrics`): the ``score_*`` and
``metric_*`` columns of its results (:data:`.scoring.METRICS`, in that order)."""

from __future__ import annotations

from ...core.metrics import MetricSpec, MetricSpecs, categories, per_seat

METRICS = MetricSpecs(
    scores=categories("scored"),  # tokens borne off (Winning): one point each
    metrics=(
        # per game: the same value on both seats (turns of both players, tokens removed by both,
        # roll agains taken by both)
        MetricSpec("game_turns", "game", "count", "turns"),
        MetricSpec("game_captures", "game", "count", "tokens"),
        MetricSpec("game_roll_agains", "game", "count", "rolls"),
        *per_seat("count", "tokens", "captures", "captured"),
        *per_seat("count", "rolls", "roll_agains"),
        *per_seat("count", "tokens", "tokens_on_board"),
        *per_seat("count", "cards", "cards_in_play"),
    ),
)
"""Urgency in the registry's ``GameSpec.metrics``."""
