"""How many games a balance check needs (``balancer plan``): for every number ``check`` tracks, the
games of a baseline and of a check (each) that find a change as large as its tolerance with
probability ``1 - miss_rate``, at the study's false-alarm rate over all numbers; the number that
needs the most drives its cell, and the cell that needs the most drives the study.

The games come from the design ``check`` runs (:mod:`balancer.stats.sequential`): the difference of a
check's mean and the baseline's, each of ``m`` games, has standard error ``sqrt(2 s^2 / m)``, and is
found at the last of ``looks`` looks when ``(c_K + z_{1 - miss/2}) sqrt(2 s^2 / m) <= tolerance``
(``c_K``: the last look's efficacy boundary at the number's share of the false-alarm rate, Bonferroni
over numbers and sides, as ``check`` splits it), so

    m = 2 s^2 ((c_K + z_{1 - miss/2}) / tolerance)^2

with ``s^2`` the per-game variance: ``p (1 - p)`` for a win rate (the baseline's ``p``, else the fair
share ``1 / players``); a metric's tolerance is in its own standard deviations, so ``s`` cancels. With
a baseline, it also gives the games per check against that baseline
(:func:`balancer.stats.sequential.games_needed`), ``None`` when its own noise is too large.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy import stats

from balancer.stats import sequential as sq
from balancer.study import load_study

from .run import _tolerance, plan_check
from .values import is_tracked, kind_of


@dataclass(frozen=True)
class Planned:
    """One tracked number: its cell, its tolerance (a win rate's as a fraction, a metric's in its
    own unit with a baseline, else in standard deviations: ``tolerance_text`` says which), the games
    of a baseline and of a check that find it, and (with a baseline) the games per check against it."""

    run: str
    variant: str
    number: str
    kind: str
    tolerance: float
    tolerance_text: str
    games: int
    check_games: int | None = None


@dataclass(frozen=True)
class GamePlan:
    """The plan of a study's check: its error rates, looks, and every number (:class:`Planned`)."""

    study: str
    false_alarm: float
    miss_rate: float
    looks: int
    numbers: list[Planned]
    baseline: bool
    played: dict[str, int] = field(default_factory=dict)
    """Each run's ``games:`` in the study file (what ``study`` and ``baseline save`` play per cell)."""

    def drivers(self) -> dict[tuple[str, str], Planned]:
        """Each cell's number that needs the most games (the one that drives the cell's total)."""
        out: dict[tuple[str, str], Planned] = {}
        for p in self.numbers:
            key = (p.run, p.variant)
            if key not in out or p.games > out[key].games:
                out[key] = p
        return out

    def driver(self) -> Planned | None:
        """The number that needs the most games of all: it drives the study's total."""
        return max(self.numbers, key=lambda p: p.games, default=None)


def games_for(
    var: float, tolerance: float, alpha_side: float, miss_rate: float, looks: int, players: int, paired: bool = True
) -> int:
    """``2 var ((c_K + z_{1 - miss/2}) / tolerance)^2`` rounded up to a multiple of ``players`` (the
    games of a baseline and of a check, each; module docstring); without the 2 when not ``paired``
    (an expect: target, a fixed bound that has no baseline's noise)."""
    c = sq.final_boundary(looks, alpha_side) + float(stats.norm.isf(miss_rate / 2))
    m = (2 if paired else 1) * var * (c / tolerance) ** 2
    return max(players, players * math.ceil(m / players - 1e-9))


def _numbers_without_baseline(study: Any, run: Any, metrics: list[str]) -> list[str]:
    seats = [f"seat_win_rate:{s}" for s in range(1, run.players + 1)]
    agents = list(dict.fromkeys(run.table))
    return seats + ([f"agent_win_rate:{a}" for a in agents] if len(agents) > 1 else []) + metrics


def plan_games(study_path: Path | str, settings: Any = None, baseline: dict[str, Any] | None = None) -> GamePlan:
    """The :class:`GamePlan` of the study at ``study_path`` with its ``check:`` settings (or
    ``settings``): from a ``baseline`` dict when given (its numbers, variances and expect targets,
    as ``check`` would test them), else from the study alone (win rates at the fair share; metrics
    from ``check.metrics``, else every metric the game declares). Raises what :func:`load_study`
    and :func:`balancer.check.run.plan_check` raise."""
    from balancer.games import get_spec

    study_path = Path(study_path)
    study, _ = load_study(study_path)
    settings = settings or study.check
    planned: list[Planned] = []
    if baseline is not None:
        items, _ = plan_check(study, study_path, baseline, settings, "baseline")
        for i in items:
            players = study.runs[i.run].players
            var = i.baseline_var
            need = sq.games_needed(i.tolerance, var, i.ref_var, settings.looks, i.alpha_side, settings.miss_rate)
            check = None if not math.isfinite(need) else max(players, players * math.ceil(need / players))
            planned.append(
                Planned(
                    i.run,
                    i.variant,
                    i.number + ("" if i.test == "baseline" else f" (target {i.reference_text})"),
                    i.kind,
                    i.tolerance,
                    _tolerance_text(i.kind, i.tolerance, settings, i.number),
                    games_for(
                        var,
                        i.tolerance,
                        i.alpha_side,
                        settings.miss_rate,
                        settings.looks,
                        players,
                        i.test == "baseline",
                    ),
                    check,
                )
            )
        return GamePlan(
            study.study, settings.false_alarm, settings.miss_rate, settings.looks, planned, True, _played(study)
        )
    specs = get_spec(study.game).metrics
    if settings.metrics is not None:
        metrics = [m for m in settings.metrics if is_tracked(m, settings.metrics)]
    else:
        metrics = [f"{m.name}_per_player" for m in (specs.metrics if specs is not None else ())]
    cells = [(r, v, run) for r, run in study.runs.items() for v in study.variants]
    # what check tests (balancer.check.run.plan_check): every number against the baseline (both sides)
    # and every expect: target (its sides), one Bonferroni family; the targets were left out, so the
    # plan split the false alarm over fewer numbers than check does and asked for too few games
    numbers: list[tuple[str, str, Any, str, Any]] = []
    for r, v, run in cells:
        tracked = _numbers_without_baseline(study, run, metrics)
        numbers += [(r, v, run, n, None) for n in tracked]
        for key, bound in run.expect.items():
            named = (
                [n for n in tracked if n.startswith(key + ":")] if key in ("seat_win_rate", "agent_win_rate") else []
            )
            numbers += [(r, v, run, n, bound) for n in (named or [key])]
    for r, v, run, n, bound in numbers:
        kind = kind_of(n)
        p = 1 / run.players
        var, tol = (
            (p * (1 - p), _tolerance(n, p * (1 - p), settings)) if kind == "win_rate" else (1.0, _sd(n, settings))
        )
        alpha_side = settings.false_alarm / max(len(numbers), 1) / (2 if bound is None else len(bound.sides))
        planned.append(
            Planned(
                r,
                v,
                n if bound is None else f"{n} (target {bound.text()})",
                kind,
                tol,
                _tolerance_text(kind, tol, settings, n),
                games_for(var, tol, alpha_side, settings.miss_rate, settings.looks, run.players, bound is None),
            )
        )
    return GamePlan(
        study.study, settings.false_alarm, settings.miss_rate, settings.looks, planned, False, _played(study)
    )


def _played(study: Any) -> dict[str, int]:
    return {name: int(run.games) for name, run in study.runs.items()}


def _sd(number: str, settings: Any) -> float:
    """A metric's tolerance in its standard deviations (the variance 1 of :func:`_tolerance`)."""
    return _tolerance(number, 1.0, settings)


def _tolerance_text(kind: str, tolerance: float, settings: Any, number: str) -> str:
    """``5 points`` for a win rate; ``0.15 SD`` (``= 0.42``) for a metric."""
    if kind == "win_rate":
        return f"{100 * tolerance:.3g} points"
    sd = _sd(number, settings)
    return f"{sd:.3g} SD" + ("" if math.isclose(sd, tolerance) else f" (= {tolerance:.3g})")


def plan_lines(plan: GamePlan) -> list[str]:
    """The plan in words, one line per cell (its driver first) and per number."""
    lines = [
        f"plan of {plan.study}: false alarm {plan.false_alarm:g} over {len(plan.numbers)} numbers, miss rate "
        f"{plan.miss_rate:g}, {plan.looks} look{'s' if plan.looks != 1 else ''}; games of a baseline and of a check, each"
        + (", and per check against this baseline" if plan.baseline else "")
    ]
    driver = plan.driver()
    for (run, variant), d in sorted(plan.drivers().items()):
        played = plan.played.get(run)
        enough = (
            ""
            if played is None
            else f"; the study plays {played:,}: "
            + ("enough" if played >= d.games else f"too few, set runs.{run}.games")
        )
        lines.append(f"{run}/{variant}: {d.games:,} games, driven by {d.number} (tolerance {d.tolerance_text}){enough}")
        for p in sorted((p for p in plan.numbers if (p.run, p.variant) == (run, variant)), key=lambda p: -p.games):
            against = ""
            if plan.baseline:
                against = (
                    f"; {p.check_games:,} per check" if p.check_games is not None else "; the baseline is too noisy"
                )
            lines.append(f"  {p.number}: {p.games:,} games (tolerance {p.tolerance_text}{against})")
    if driver is not None:
        lines.append(
            f"the study needs {driver.games:,} games per cell, driven by {driver.run}/{driver.variant} {driver.number}"
        )
    return lines
