"""Urban Sketchers' score categories and metrics (:mod:`balancer.core.metrics`): the ``score_*`` and
``metric_*`` columns of its results (:func:`.kernel.outcome`)."""

from __future__ import annotations

from ...core.metrics import MetricSpec, MetricSpecs, categories, per_seat
from .config import ACTIONS, COLOURS
from .kernel import IMPROVEMENT_NAMES
from .scoring import COMPONENTS

METRICS = MetricSpecs(
    scores=categories(*COMPONENTS),  # publishing, sets, majorities, prestige, leftovers (End of game)
    metrics=(
        MetricSpec("game_rounds", "game", "count", "rounds"),
        *per_seat(
            "count",
            "money",
            "paid_players",
            "paid_bank",
            "received_from_players",
            words={
                "paid_players": "money paid to other players, per player",
                "paid_bank": "money paid to the bank, per player",
                "received_from_players": "money received from other players, per player",
            },
        ),
        *per_seat("count", "actions", *(f"actions_{a}" for a in ACTIONS)),
        *per_seat("count", "dice", *(f"dice_{c}" for c in (*COLOURS, "white"))),
        *per_seat("count", "dice", "white_dice_on_actions"),
        *per_seat("count", "publications", "published"),
        *per_seat("count", "cards", "mean_publish_size"),  # cards per publication, 0 without any
        *per_seat("indicator", "", *(f"improvement_{t}" for t in IMPROVEMENT_NAMES)),  # taken or not
        *per_seat("count", "money", "prestige_overflow_money"),
    ),
)
"""Urban Sketchers in the registry's ``GameSpec.metrics``."""
