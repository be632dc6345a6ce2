"""Águeda's score categories and metrics (:mod:`balancer.core.metrics`): the ``score_*`` and
``metric_*`` columns of its results (:func:`.kernel.outcome_of_rows`)."""

from __future__ import annotations

from ...core.metrics import MetricSpec, MetricSpecs, categories, per_seat
from .scoring import COMPONENTS

METRICS = MetricSpecs(
    scores=categories(*COMPONENTS),  # tourists, mural, shops, empty spaces (Final scoring)
    metrics=(
        *per_seat("count", "coins", "coins_gained", "coins_spent", "coins_left"),
        *per_seat("count", "umbrellas", "umbrellas_returned"),
        *per_seat("count", "tourists", "tourists_attracted"),
        *per_seat("count", "breaks", "breaks"),
        *per_seat("count", "tiles", "mural_tiles"),
        *per_seat("count", "spaces", "empty_spaces"),
        MetricSpec("game_turns", "game", "count", "turns"),  # the game's length: every seat's turns
        # solo mode only (Solo rules): the automa's score, and whether the player beat it
        MetricSpec("ai_score", "seat", "points", "points"),
        MetricSpec("solo_win", "seat", "indicator", solo_result=True),
    ),
)
"""Águeda in the registry's ``GameSpec.metrics``."""
