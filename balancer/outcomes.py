"""What a command returns: plain dataclasses of a finished study, sweep, tune, check and ladder.

They stand below the commands that build them (:mod:`balancer.study`, :mod:`balancer.sweep`,
:mod:`balancer.tune`, :mod:`balancer.check`, :mod:`balancer.ladder`) and the pages that render them
(:mod:`balancer.report`), so that the renderer never imports a command. A result holds the
definition it was played from (the study file, the sweep's or tune's checked plan) as it was read;
it is named by its type in a comment and read by attribute, so this module imports no command.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from balancer.paths import get_path, parse_path
from balancer.stats import sequential as sq
from balancer.stats.ratings import Ratings
from balancer.stats.tracked import means_and_variances

# --------------------------------------------------------------------------------------------------
# study (and the cells every command plays)


@dataclass
class Cell:
    """One run of the study under one variant, and where its results are."""

    run: str
    variant: str
    config_path: Path
    out_dir: Path
    reused: bool = False
    summary: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


class PlayedCells:
    """What a result's cells (``cells``, keyed by ``(run, variant or point)``) say in their run.json."""

    cells: dict[tuple[str, str], Cell]

    @property
    def simulated_seconds(self) -> float:
        """Time spent playing the games of every cell, when each was played (seconds)."""
        return sum(float(c.meta.get("elapsed_seconds", 0.0)) for c in self.cells.values())

    @property
    def warmup_seconds(self) -> float | None:
        """Of :attr:`simulated_seconds`, the warm-up of the cells whose run.json records it (numba
        compiling or loading the engines, workers starting); None when no cell records it."""
        found = [c.meta.get("warmup_seconds") for c in self.cells.values()]
        kept = [float(w) for w in found if isinstance(w, int | float) and not isinstance(w, bool) and w >= 0]
        return sum(kept) if kept else None

    def took_text(self) -> str:
        """How long playing the cells took, for the terminal: ``357 s``, or with the warm-up apart where
        the runs record it, ``7 s, after 350 s of warm-up (numba compiling or loading the engines)``."""
        warm = self.warmup_seconds
        if warm is None:
            return f"{self.simulated_seconds:,.0f} s"
        play = max(self.simulated_seconds - warm, 0.0)
        return f"{play:,.0f} s, after {warm:,.0f} s of warm-up (numba compiling or loading the engines)"

    @property
    def games(self) -> int:
        return sum(int(c.meta.get("games", 0)) for c in self.cells.values())


@dataclass
class StudyResult(PlayedCells):
    """A finished study: its definition, every cell, and how long this invocation took (seconds)."""

    study: Any  # the study file (balancer.study.model.Study)
    study_path: Path
    cells: dict[tuple[str, str], Cell]
    wall_seconds: float


# --------------------------------------------------------------------------------------------------
# sweep


@dataclass
class SweepResult(PlayedCells):
    """A finished sweep: its plan, every cell and its per-game numbers and estimates (keyed by
    ``(run, point label)``), the games played by this invocation and its wall time (seconds)."""

    plan: Any  # the checked sweep (balancer.sweep.model.SweepPlan)
    cells: dict[tuple[str, str], Cell]
    numbers: dict[tuple[str, str], dict[str, np.ndarray]]
    estimates: dict[tuple[str, str], dict[str, dict[str, float]]]
    games_played: int
    wall_seconds: float

    def verdicts(self) -> list[dict[str, Any]]:
        """Per target term and point: ``{term, run, point, values, verdict, rows, distance}`` (rows:
        per number; the distance corrected for noise as the tune objective is,
        :func:`balancer.sweep.targets.term_distance`)."""
        out = []
        for term in self.plan.terms:
            for p in self.plan.points:
                est = self.estimates[(term.run, p.label)]
                out.append(
                    {
                        "term": term.title,
                        "run": term.run,
                        "point": p.label,
                        "values": p.values,
                        "verdict": term.verdict(est),
                        "rows": term.verdicts(est),
                        "distance": term.distance(*means_and_variances(self.numbers[(term.run, p.label)])),
                    }
                )
        return out


# --------------------------------------------------------------------------------------------------
# tune


@dataclass
class Evaluation:
    """A candidate measured at one rung: games per run (cumulative), the objective at the means with
    its bootstrap 95% interval, every tracked number's estimate (run -> number -> estimate), and the
    objective before its floor at 0 (``signed``: :func:`balancer.sweep.targets.signed_objective`, the
    order of candidates that both score 0)."""

    rung: int
    games: dict[str, int]
    objective: float
    low: float
    high: float
    estimates: dict[str, dict[str, dict[str, float]]]
    signed: float = math.nan


@dataclass
class Candidate:
    """A point of the search space: its values (in space order), label, variant file, config (None
    when the model refused it, with the reason), its evaluations by rung, and the trials that proposed it."""

    index: int
    values: dict[str, Any]
    label: str
    file: Path
    cfg: Any = None  # the game's config model, or None
    refused: str | None = None
    evaluations: dict[int, Evaluation] = field(default_factory=dict)
    trials: list[int] = field(default_factory=list)

    @property
    def top(self) -> Evaluation | None:
        return self.evaluations[max(self.evaluations)] if self.evaluations else None


@dataclass
class Confirmation:
    """The confirmation: its seed and games per run, the best candidate's and (optionally) the base's
    cells, estimates, objective with interval, and each target's verdict rows."""

    seed: int
    games: dict[str, int]
    best: dict[str, Cell]
    base: dict[str, Cell]
    best_estimates: dict[str, dict[str, dict[str, float]]]
    base_estimates: dict[str, dict[str, dict[str, float]]]
    best_objective: tuple[float, float, float]
    base_objective: tuple[float, float, float] | None
    verdicts: list[dict[str, Any]]
    paired: dict[str, dict[str, Any]]


@dataclass
class TuneResult:
    """A finished tune: its plan, the sampler used, every candidate, the trial order (candidate index
    per trial, with the rung it reached and whether it was pruned), the best candidate, the response
    around it, the confirmation, and games and seconds spent."""

    plan: Any  # the checked tune (balancer.tune.model.TunePlan)
    sampler: str
    candidates: list[Candidate]
    trials: list[dict[str, Any]]
    best: Candidate | None
    ranked: list[Candidate]
    response: dict[str, list[Candidate]]
    confirmation: Confirmation | None
    games_search: int
    games_response: int
    games_confirm: int
    games_played: int
    stop_reason: str
    wall_seconds: float

    @property
    def changes(self) -> dict[str, Any]:
        """The best candidate's values that differ from the base's (what ``--write`` sets)."""
        if self.best is None:
            return {}
        data = self.plan.base.resolved.data
        return {p: v for p, v in self.best.values.items() if get_path(data, parse_path(p)) != v}

    @property
    def refusal(self) -> str | None:
        """Why the best candidate is not recommended (``--write`` writes nothing and exits 1; the page
        shows no best), or None when it passed its confirmation on fresh seeds (every target met or
        consistent) and beat the base there (a smaller objective than the base's with the same seeds)."""
        conf = self.confirmation
        if self.best is None or conf is None:
            return "the search measured no candidate"
        if not self.changes:
            return "the best candidate is the base's own values: the base is as good or better"
        passed = ("met", "consistent")
        for v in conf.verdicts:
            if v["verdict"] not in passed:
                base = v["base_verdict"]
                tail = "; the base is as good or better" if base in passed else ""
                return (
                    f"the best candidate failed its confirmation on fresh seeds ({v['title']}: {v['verdict']}"
                    + (f", base: {base}" if base else "")
                    + f"){tail}"
                )
        if conf.base_objective is None:
            return "the base was not played beside it (confirm: {base: false}), so it is not shown to beat the base"
        best, base = conf.best_objective[0], conf.base_objective[0]
        if not best < base:
            return (
                f"the base is as good or better: objective {best:.4f} against the base's {base:.4f} "
                "with the same fresh seeds"
            )
        return None


# --------------------------------------------------------------------------------------------------
# check


@dataclass
class Item:
    """One tracked number of one cell, its test, and (once decided) its verdict."""

    run: str
    variant: str
    number: str
    kind: str  # "win_rate" or "metric"
    test: str  # "baseline" (regression) or "expect" (a designer's target)
    sides: list[tuple[float, int]]
    reference_text: str
    baseline_mean: float
    baseline_var: float
    ref_var: float
    tolerance: float
    alpha_side: float
    design: sq.Design | None = None
    detectable: float = math.nan
    verdict: str | None = None
    now: float = math.nan
    difference: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    games: int = 0
    now_var: float = math.nan  # sample variance of the per-game values behind ``now``

    @property
    def name(self) -> str:
        return f"{self.run}/{self.variant}/{self.number}" + (" (expect)" if self.test == "expect" else "")

    @property
    def powered(self) -> bool:
        return self.detectable <= self.tolerance * (1 + 1e-9)


@dataclass
class CheckResult:
    """A finished check: every item, the seed played, the settings used, notes, wall time (s).

    ``warnings``: what every output must show beside the verdict (a variant file changed since the
    baseline); ``cells``: per (run, variant) the variant's ``config_sha256`` now, the
    ``engine_sha256``, ``variant_changed`` and the baseline's games; ``values``: per (run, variant,
    number) the per-game values played (for the history's paired comparisons)."""

    study: Any  # the study file (balancer.study.model.Study)
    seed: int
    settings: Any  # its check: settings (balancer.study.model.CheckSettings)
    items: list[Item]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    values: dict[tuple[str, str, str], np.ndarray] = field(default_factory=dict, repr=False)
    study_path: Path | None = None

    @property
    def passed(self) -> bool:
        return all(i.verdict == "pass" for i in self.items)

    @property
    def underpowered(self) -> list[Item]:
        """The numbers whose game cap cannot find a change as large as their tolerance at the miss rate
        (only with ``allow_underpowered``: the check refuses them otherwise)."""
        return [i for i in self.items if not i.powered]

    @property
    def games(self) -> int:
        by_cell: dict[tuple[str, str], int] = {}
        for i in self.items:
            by_cell[(i.run, i.variant)] = max(by_cell.get((i.run, i.variant), 0), i.games)
        return sum(by_cell.values())


# --------------------------------------------------------------------------------------------------
# ladder


@dataclass
class LadderTable:
    """One ladder (a variant at one player count): every number of its report section.

    ``seat_rates[r]``: the mirror summary's seat rows of rung ``r`` (``seat, rate, ci_low, ci_high,
    games, wins``); ``mirror[r]``: that cell. ``matchups``: long rows ``{row, col, order, games,
    wins, rate, ci_low, ci_high}`` with rungs as names and ``order`` "any" (pooled over seats),
    "first"/"second" (2 players: the row agent moved first/second) or "seat <k>" (n players: the
    lone row agent sat in seat k); the 2-player diagonal holds the mirror's seat 1 and seat 2 rates
    as "first" and "second". ``published``: seat rates as fractions, or None; ``closest``: the rung
    whose seat rates are nearest to them (``{rung, rms}``, root mean square over seats, fraction).
    ``depth``: the skill depth, top rung against bottom (:func:`balancer.stats.ladder.skill_depth`);
    ``steps``: the same for each rung against the one below it (``{lower, upper} | skill_depth``).
    ``never``: (row, col) pairs in which the row agent never won a game (its rating distance below
    the column is then bounded only by the pseudo-game).
    """

    variant: str
    players: int
    rungs: list[str]
    mirror: list[Cell]
    seat_rates: list[list[dict[str, Any]]]
    test: dict[str, Any]
    shift: dict[str, Any]
    sentence: str
    matchups: list[dict[str, Any]] = field(default_factory=list)
    matchup_cells: list[Cell] = field(default_factory=list)
    ratings: Ratings | None = None
    rating_note: str = ""
    depth: dict[str, float] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    never: list[tuple[str, str]] = field(default_factory=list)
    published: list[float] | None = None
    closest: dict[str, Any] | None = None
    distances: list[float] = field(default_factory=list)

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    @property
    def key(self) -> str:
        """An id for anchors and figure files: ``<variant>-<n>p``."""
        return f"{self.variant}-{self.players}p"

    def matchup(self, row: str, col: str, order: str = "any") -> dict[str, Any] | None:
        """The match-up row of ``row`` against ``col`` for ``order``, or None if not played."""
        for m in self.matchups:
            if m["row"] == row and m["col"] == col and m["order"] == order:
                return m
        return None
