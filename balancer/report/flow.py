"""The run report's section "How the game feels" (issue 49): margin, each seat's final scores and length
from ``results.parquet``, and, when the run directory holds ``trajectories.parquet``, the leader-wins
curve, lead changes, comebacks and decided-at (:mod:`balancer.stats.flow` defines each and the file's
contract). :func:`flow_view` gives the template its context, figures inline.

The run writes the file when its game records trajectories (``balancer.sim.rundir``; Pig and the
four shipped games do); this module reads it itself, at the edge, and names it in any error: a file that cannot be read or breaks the contract is a
:class:`~balancer.sim.results.ResultsFileError` (one line, exit 2), never half a page.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from markupsafe import Markup

from balancer.report import figures
from balancer.report.figures.flow import (
    MIN_CURVE_GAMES,
    distribution_figure,
    first_thin_checkpoint,
    leader_wins_figure,
    seat_scores_figure,
)
from balancer.sim.results import ResultsFileError
from balancer.stats.flow import TRAJECTORIES_FILE, flow_measures


def _svg(fig: Any) -> Markup:
    return Markup(figures.svg_string(fig))


def flow_view(
    results: pl.LazyFrame | pl.DataFrame,
    trajectories: pl.LazyFrame | pl.DataFrame | None,
    n_players: int,
    confidence: float = 0.95,
    results_name: str = "results.parquet",
    trajectories_name: str = TRAJECTORIES_FILE,
    checkpoint: str = "round",
    no_flow: bool = False,
    why_none: str = "",
) -> dict[str, Any] | None:
    """The section's context: ``measures`` (:meth:`~balancer.stats.flow.FlowMeasures.to_dict`), the
    figures (``distribution_chart``: margin and length; ``seat_chart``; with trajectories
    ``leader_chart`` and ``course_chart``: decided-at and lead changes) and ``trajectories``
    (whether the run has them); None when the results have no ``game_index`` (the section needs
    games). ``checkpoint``: what ends a checkpoint in this game (run.json's ``checkpoint``), for the
    leader-wins figure and its caption; ``no_flow``: the run was played with ``--no-flow`` (run.json's
    ``flow`` is false), which the page says where the trajectory measures would be; ``why_none``: why a
    run with trajectories on kept none (run.json's ``no_trajectories``), said there too. Raises ResultsFileError naming ``results_name`` (or ``trajectories_name``) when the
    tables break their contracts."""
    columns = (results.collect_schema() if isinstance(results, pl.LazyFrame) else results.schema).names()
    if "game_index" not in columns:
        return None
    try:
        measures = flow_measures(results, trajectories, confidence).to_dict()
    except ValueError as exc:
        name = trajectories_name if "trajector" in str(exc) else results_name
        raise ResultsFileError(f"{name}: {exc}") from None
    except (pl.exceptions.PolarsError, OSError) as exc:  # a row group that cannot be read, met only when its slice is
        text = " ".join(str(exc).split())[:160] or type(exc).__name__
        name = results_name if trajectories is None else f"{results_name} or {trajectories_name}"
        raise ResultsFileError(f"{name}: cannot be read ({text})") from None
    panels = []
    if measures["margin"]:
        panels.append(("Margin", "winner minus runner-up (points)", [("", measures["margin"])]))
    if measures["length"]:
        panels.append(("Length", "turns (the most of any seat)", [("", measures["length"])]))
    distribution_chart = _svg(distribution_figure(panels)) if panels else None
    seat_chart = (
        _svg(seat_scores_figure(measures["seat_scores"]))
        if any(s["scores"].get("n") for s in measures["seat_scores"])
        else None
    )
    leader_chart = course_chart = None
    thin_from = None
    t = measures["trajectory"]
    if t and t["leader_wins"]:
        fair = 1.0 / n_players if n_players > 1 else None
        thin_from = first_thin_checkpoint([t["leader_wins"]], MIN_CURVE_GAMES)
        leader_chart = _svg(
            leader_wins_figure(
                [("this run", t["leader_wins"])], fair_share=fair, checkpoint=checkpoint, drawn_before=thin_from
            )
        )
        course_chart = _svg(
            distribution_figure(
                [
                    ("Decided at", "share of the game", [("", t["decided_at"])]),
                    ("Lead changes", "per game", [("", t["lead_changes"])]),
                ]
            )
        )
    return {
        "measures": measures,
        "trajectories": trajectories is not None,
        "trajectories_file": TRAJECTORIES_FILE,
        "distribution_chart": distribution_chart,
        "seat_chart": seat_chart,
        "leader_chart": leader_chart,
        "course_chart": course_chart,
        "checkpoint": checkpoint,
        "no_flow": no_flow,
        "why_none": why_none,
        # the leader-wins figure stops before this checkpoint (numbered from 1 here, as on its axis)
        "thin_from": None if thin_from is None else thin_from + 1,
        "min_curve_games": MIN_CURVE_GAMES,
    }
