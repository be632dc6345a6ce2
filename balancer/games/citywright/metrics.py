"""Citywright's score categories and metrics (:mod:`balancer.core.metrics`): the ``score_*`` and
``metric_*`` columns of its results, as :func:`.kernel.outcome_of_rows` writes them."""

from __future__ import annotations

from ...core.metrics import MetricSpecs, categories, per_seat

METRICS = MetricSpecs(
    # Scoring (rulebook "Scoring"): the four districts, achievements, and the seat bonus of the
    # setup ("Seat bonus"), points a seat gets for where it sits, not for its play
    scores=categories(
        "residential", "commercial", "park", "industrial", "achievements", "seat_bonus", position_bonus="seat_bonus"
    ),
    metrics=(
        *per_seat("count", "tiles", "wasted_tiles"),
        *per_seat("count", "cells", "empty_cells"),
        *per_seat("count", "rulers", "rulers_placed"),
        *per_seat("count", "discards", "forced_discards"),
    ),
)
"""Citywright in the registry's ``GameSpec.metrics``."""
