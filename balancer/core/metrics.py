"""Metric specs: what a game's results columns mean (issue 19; the shape of TAG's declared metrics).

Each game declares, in ``balancer/games/<game>/metrics.py``, the score categories of its
``score_<name>`` columns and the metrics of its ``metric_<name>`` columns: per seat or per game,
unit, and kind (a count, a rate, a 0/1 indicator, points). ``run.json`` records the declaration
(``metric_specs``, :meth:`MetricSpecs.to_json`); the statistics and the report read it instead of
guessing from a metric's name or values, so nothing outside ``balancer/games/`` names a game's
metric or score category.

A results table of a game that declares nothing (a test's stand-in game, a run directory of a game
no longer registered) falls back on :func:`convention_spec`: the naming convention of the results
format that balancer followed before metrics were declared (docs/architecture.md, "Results").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

Kind = Literal["count", "rate", "indicator", "points"]
"""count: a number of things (tiles, turns); rate: a fraction in [0, 1] shown in percent;
indicator: 0 or 1 per seat (took an improvement, won the solo game), shown in percent; points: a
number of score points."""
Per = Literal["seat", "game"]
"""seat: each seat has its own value; game: the same value on every seat of a game (its length)."""

KINDS: tuple[Kind, ...] = ("count", "rate", "indicator", "points")
PERS: tuple[Per, ...] = ("seat", "game")
PER_PLAYER = "_per_player"
"""The suffix of a metric's per-player mean in ``summary.json`` (``metrics.<name>_per_player``)."""


@dataclass(frozen=True)
class MetricSpec:
    """One ``metric_<name>`` column of a game's results.

    name: the metric's name (without ``metric_``); per: ``"seat"`` or ``"game"``; kind: see
    :data:`Kind`; unit: what one unit counts (``"tiles"``, ``"turns"``; ``""`` for a rate or an
    indicator); solo_result: True for the 0/1 metric that says whether a solo player beat the game
    (a solo seat always "wins" its table, so its win rate is this metric's mean). words: how every
    page and figure names it in a designer's words, where its name's words do not say it
    (``paid_players`` read "paid players per player" on an axis: ``words="money paid to other
    players, per player"``); "" for the name's words and "per player" / "per game" (:attr:`label`).
    """

    name: str
    per: Per = "seat"
    kind: Kind = "count"
    unit: str = ""
    solo_result: bool = False
    words: str = ""

    def __post_init__(self) -> None:
        if self.per not in PERS:
            raise ValueError(f"metric {self.name!r}: per must be one of {', '.join(PERS)}, got {self.per!r}")
        if self.kind not in KINDS:
            raise ValueError(f"metric {self.name!r}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.solo_result and self.kind != "indicator":
            raise ValueError(f"metric {self.name!r}: a solo result is a 0/1 indicator")

    @property
    def is_rate(self) -> bool:
        """True for a rate or an indicator: shown in percent."""
        return self.kind in ("rate", "indicator")

    @property
    def label(self) -> str:
        """How the metric is named on every page: ``"wasted tiles per player"``, a per-game metric
        without its own ``game_`` prefix: ``"game_turns" -> "turns per game"``; its :attr:`words`
        when the game gives them."""
        if self.words:
            return self.words
        if self.per == "game":
            base = self.name.removeprefix(GAME_PREFIX) or self.name
            return f"{humanize(base)} per game"
        return f"{humanize(self.name)} per player"


@dataclass(frozen=True)
class ScoreCategory:
    """One ``score_<name>`` column: points of one scoring category; the categories sum to the score.

    position_bonus: True for the points the rules give a seat for its position at the table (not for
    its play); the statistics then also report each seat's score without them.
    """

    name: str
    position_bonus: bool = False


@dataclass(frozen=True)
class MetricSpecs:
    """A game's declared score categories and metrics, in the order of its results columns."""

    scores: tuple[ScoreCategory, ...] = ()
    metrics: tuple[MetricSpec, ...] = ()
    _by_name: dict[str, MetricSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [m.name for m in self.metrics]
        if len(set(names)) != len(names):
            raise ValueError(f"metrics declared twice: {sorted({n for n in names if names.count(n) > 1})}")
        if sum(m.solo_result for m in self.metrics) > 1:
            raise ValueError("at most one metric is a game's solo result")
        if sum(c.position_bonus for c in self.scores) > 1:
            raise ValueError("at most one score category is a position bonus")
        object.__setattr__(self, "_by_name", {m.name: m for m in self.metrics})

    def metric(self, name: str) -> MetricSpec | None:
        """The spec of metric ``name`` (plain, ``metric_<name>`` or the summary's
        ``<name>_per_player``), or None if the game does not declare it."""
        for key in (name, name.removeprefix("metric_"), name.removesuffix(PER_PLAYER)):
            if key in self._by_name:
                return self._by_name[key]
        return None

    @property
    def position_bonus(self) -> str | None:
        """The name of the seat-bonus score category, or None."""
        return next((c.name for c in self.scores if c.position_bonus), None)

    @property
    def solo_result(self) -> str | None:
        """The name of the metric that is a solo game's own result, or None."""
        return next((m.name for m in self.metrics if m.solo_result), None)

    @property
    def indicators(self) -> tuple[str, ...]:
        """The names of the 0/1 indicator metrics, in declaration order."""
        return tuple(m.name for m in self.metrics if m.kind == "indicator")

    def names(self) -> set[str]:
        """Every declared name: score categories and metrics."""
        return {c.name for c in self.scores} | {m.name for m in self.metrics}

    def to_json(self) -> dict[str, Any]:
        """The declaration as ``run.json`` records it (``metric_specs``)."""
        return {
            "scores": [{"name": c.name, "position_bonus": c.position_bonus} for c in self.scores],
            "metrics": [
                {"name": m.name, "per": m.per, "kind": m.kind, "unit": m.unit, "solo_result": m.solo_result}
                | ({"words": m.words} if m.words else {})  # only when given: run.json as before otherwise
                for m in self.metrics
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MetricSpecs:
        """The inverse of :meth:`to_json`; ValueError naming the entry if ``data`` is malformed."""
        try:
            scores = tuple(
                ScoreCategory(name=str(c["name"]), position_bonus=bool(c.get("position_bonus", False)))
                for c in data.get("scores", [])
            )
            metrics = tuple(
                MetricSpec(
                    name=str(m["name"]),
                    per=cast(Per, m.get("per", "seat")),
                    kind=cast(Kind, m.get("kind", "count")),
                    unit=str(m.get("unit", "")),
                    solo_result=bool(m.get("solo_result", False)),
                    words=str(m.get("words", "")),
                )
                for m in data.get("metrics", [])
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"metric_specs: malformed entry ({exc})") from None
        return cls(scores=scores, metrics=metrics)


def per_seat(kind: Kind, unit: str, *names: str, words: Mapping[str, str] | None = None) -> tuple[MetricSpec, ...]:
    """Per-seat metrics of one kind and unit: ``per_seat("count", "tiles", "wasted_tiles")``;
    ``words``: name -> how the pages name it (:attr:`MetricSpec.words`), for the names that need it."""
    return tuple(MetricSpec(name, "seat", kind, unit, words=(words or {}).get(name, "")) for name in names)


def categories(*names: str, position_bonus: str | None = None) -> tuple[ScoreCategory, ...]:
    """Score categories in column order; ``position_bonus`` names the one that is a position bonus."""
    return tuple(ScoreCategory(n, position_bonus=n == position_bonus) for n in names)


# --------------------------------------------------------------------------- names


GAME_PREFIX = "game_"


def humanize(name: str) -> str:
    """``"wasted_tiles_per_player" -> "wasted tiles per player"``."""
    return str(name).replace("_", " ")


def convention_spec(name: str, values: Sequence[float] | None = None) -> MetricSpec:
    """The spec of an undeclared metric by the results format's naming convention (the fallback for
    games that declare no metrics): named ``game_<x>`` -> per game; named ``*_win`` or with per-player
    ``values`` all 0 or 1 -> a 0/1 indicator; else a per-seat count. ``name`` may carry the summary's
    ``_per_player`` suffix or the column's ``metric_`` prefix."""
    base = str(name).removeprefix("metric_").removesuffix(PER_PLAYER)
    per: Per = "game" if base.startswith(GAME_PREFIX) and len(base) > len(GAME_PREFIX) else "seat"
    indicator = base.endswith("_win") or (values is not None and len(values) > 0 and all(v in (0, 1) for v in values))
    return MetricSpec(base, per, "indicator" if indicator else "count")


def spec_of(name: str, specs: MetricSpecs | None, values: Sequence[float] | None = None) -> MetricSpec:
    """The declared spec of metric ``name`` in ``specs``, else :func:`convention_spec`."""
    declared = specs.metric(name) if specs is not None else None
    return declared if declared is not None else convention_spec(name, values)
