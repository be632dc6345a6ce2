"""The typed summary of one run: what :func:`balancer.stats.aggregate.summarize` computes and
``summary.json`` stores (docs/architecture.md, "Results").

Each table of the summary is a frozen dataclass whose fields are the JSON keys, in the file's order,
so a summary is built with its fields checked (a missing or unknown field is a ``TypeError`` where it
is built, and mypy checks every use) and :meth:`Summary.as_json` writes exactly the content
``summary.json`` has always had: NaN as ``null``, a metric's ``games`` only when games were the
clusters, and the seat scores without the game's seat bonus under
``score_without_<category>_by_seat``. Rates are fractions in [0, 1]; intervals are at
``confidence``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from balancer.stats.completion import Completion


@dataclass(frozen=True)
class SeatWinRate:
    """A seat's win rate (mean win share over games) with its Wilson interval."""

    seat: Any
    rate: float
    ci_low: float
    ci_high: float
    games: int
    wins: float


@dataclass(frozen=True)
class AgentWinRate:
    """An agent's win rate per seat it holds, its interval with games as the units
    (:func:`balancer.stats.aggregate.agent_win_rate_row`)."""

    agent: Any
    rate: float
    ci_low: float
    ci_high: float
    games: int
    seats: int
    wins: float
    design_effect: float
    by_construction: bool


@dataclass(frozen=True)
class MetricMean:
    """A metric's mean per player with a t interval; ``games`` (the clusters of a clustered
    interval) is None when rows were treated as independent, and then absent from the JSON."""

    mean: float | None
    ci_low: float
    ci_high: float
    n: int
    games: int | None = None


@dataclass(frozen=True)
class ScoreMean:
    """The mean score of one seat or agent (``key`` is written under ``by``: ``seat`` or ``agent``)
    with a t interval and the mean of every score component; ``components`` is None for a row of
    the scores without the seat bonus (written without that key)."""

    by: str
    key: Any
    n: int
    mean: float | None
    ci_low: float
    ci_high: float
    components: dict[str, float | None] | None = None

    def as_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {self.by: self.key, "n": self.n, "mean": self.mean}
        row |= {"ci_low": self.ci_low, "ci_high": self.ci_high}
        if self.components is not None:
            row["components"] = dict(self.components)
        return row


@dataclass(frozen=True)
class IndicatorWinRate:
    """The win rate of players with a 0/1 indicator at 1 against those at 0, with intervals that
    treat games as clusters (:func:`balancer.stats.association.indicator_win_rates`)."""

    indicator: str
    games: int
    players_1: int
    wins_1: float
    rate_1: float
    ci_low_1: float
    ci_high_1: float
    design_effect_1: float
    players_0: int
    wins_0: float
    rate_0: float
    ci_low_0: float
    ci_high_0: float
    design_effect_0: float
    difference: float
    ci_low: float
    ci_high: float
    correlation: float
    p_value: float | None = None
    p_adjusted: float | None = None
    significant: bool | None = None
    significant_alone: bool | None = None


@dataclass(frozen=True)
class Summary:
    """The summary of one run (``summary.json``). ``seat_bonus`` names the game's seat-bonus score
    category when ``score_without_bonus_by_seat`` was computed (see
    :func:`balancer.stats.aggregate.score_without_key`)."""

    game: Any
    variant: Any
    n_players: int
    games: int
    seed: Any
    rows: int
    confidence: float
    seat_win_rate: list[SeatWinRate]
    agent_win_rate: list[AgentWinRate]
    metrics: dict[str, MetricMean]
    seat_uniformity_p: float | None
    tied_games_share: float
    tied_games: int
    tied_games_ci_low: float
    tied_games_ci_high: float
    score_components: list[str]
    score_by_agent: list[ScoreMean]
    score_by_seat: list[ScoreMean]
    indicators: list[IndicatorWinRate]
    seat_bonus: str | None = None
    score_without_bonus_by_seat: list[ScoreMean] | None = None
    indicator_multiplicity: dict[str, Any] | None = None
    completion: Completion | None = None

    def as_json(self) -> dict[str, Any]:
        """The ``summary.json`` dict: strict JSON (NaN and infinities as None), keys in the file's order."""
        out: dict[str, Any] = {
            "game": self.game,
            "variant": self.variant,
            "n_players": self.n_players,
            "games": self.games,
            "seed": self.seed,
            "rows": self.rows,
            "confidence": self.confidence,
            "seat_win_rate": [dataclasses.asdict(r) for r in self.seat_win_rate],
            "agent_win_rate": [dataclasses.asdict(r) for r in self.agent_win_rate],
            "metrics": {name: _metric_json(m) for name, m in self.metrics.items()},
            "seat_uniformity_p": self.seat_uniformity_p,
            "tied_games_share": self.tied_games_share,
            "tied_games": self.tied_games,
            "tied_games_ci_low": self.tied_games_ci_low,
            "tied_games_ci_high": self.tied_games_ci_high,
            **({"completion": dataclasses.asdict(self.completion)} if self.completion is not None else {}),
            "score_components": list(self.score_components),
            "score_by_agent": [r.as_json() for r in self.score_by_agent],
            "score_by_seat": [r.as_json() for r in self.score_by_seat],
            "indicators": [dataclasses.asdict(r) for r in self.indicators],
        }
        if self.seat_bonus is not None and self.score_without_bonus_by_seat is not None:
            out[score_without_key(self.seat_bonus)] = [r.as_json() for r in self.score_without_bonus_by_seat]
        if self.indicator_multiplicity is not None:
            out["indicator_multiplicity"] = dict(self.indicator_multiplicity)
        cleaned: dict[str, Any] = json_clean(out)
        return cleaned


def score_without_key(category: str) -> str:
    """The ``summary.json`` key of each seat's score without the seat-bonus category ``category``:
    ``score_without_<category>_by_seat``."""
    return f"score_without_{category}_by_seat"


def _metric_json(m: MetricMean) -> dict[str, Any]:
    row = dataclasses.asdict(m)
    if m.games is None:
        del row["games"]
    return row


def json_clean(value: Any) -> Any:
    """``value`` with every NaN or infinity (in nested dicts, lists and tuples) replaced by None and
    numpy scalars made Python numbers, so that it is strict JSON."""
    if isinstance(value, float):
        return None if not math.isfinite(value) else value
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return json_clean(value.item())
    if isinstance(value, dict):
        return {k: json_clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_clean(v) for v in value]
    return value
