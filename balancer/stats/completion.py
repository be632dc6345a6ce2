"""Completion: how many games of a run ended by the rules, and which safety stop ended the others.

A game that stalls, loops or cannot be won is a balance finding of the first order (Ludii reports it
as its *Completion* metric); a game's safety stop (Urgency's ``cards.max_turns``) would otherwise
hide it behind an ordinary-looking score. The results' ``ended_by`` column (docs/architecture.md, "Results")
says per game "rules" or the stop that ended it (:data:`balancer.core.kernel.ENDED_BY`).

:func:`completion` counts them over a results table with Wilson intervals (the same interval as the
win rates; for 3 games of 5,000 it gives 0.02%-0.18% at 95%), lists the first game indices of each
cause (for ``balancer play ... --game-index I``) and, per ``label_*`` column, the labels the seats of
those games held (which decks were in play when Urgency stalled, as :mod:`balancer.stats.pairs`
tabulates labels). Pure functions over polars frames: no file names, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from balancer.core.kernel import COMPLETION, ENDED_BY_TEXT  # noqa: F401 (COMPLETION re-exported)
from balancer.stats.frames import wilson_interval

ENDED_COLUMN = "ended_by"
LISTED_GAMES = 20
"""The most game indices of one cause that the summary lists (their replay commands)."""


@dataclass(frozen=True)
class StopCause:
    """The games one safety stop ended: count, share of all games with its Wilson interval, the
    first :data:`LISTED_GAMES` game indices, and per label column the count of seats holding each
    label in those games."""

    cause: str
    games: int
    share: float
    ci_low: float
    ci_high: float
    text: str
    game_indices: list[int]
    labels: dict[str, dict[str, int]]


@dataclass(frozen=True)
class Completion:
    """Completion of a run (``summary.json["completion"]``): ``rate`` is the share of games that
    ended by the rules, with its Wilson interval; ``not_by_rules`` the games a safety stop ended,
    their share and interval; ``by_cause`` one :class:`StopCause` per stop that ended any game.
    ``win_rates_include_them``: the win rates count those games as the stop scored them (True: the
    runner keeps every game it played)."""

    games: int
    by_rules: int
    rate: float
    ci_low: float
    ci_high: float
    not_by_rules: int
    not_by_rules_share: float
    not_by_rules_ci_low: float
    not_by_rules_ci_high: float
    interval: str
    confidence: float
    win_rates_include_them: bool
    by_cause: list[StopCause]


def completion(lf: pl.LazyFrame, games: int, confidence: float) -> Completion | None:
    """The :class:`Completion` of the results ``lf`` (``games`` games; columns ``game_index``,
    ``seat``, ``ended_by`` and any ``label_*``), or None for a table without an ``ended_by`` column
    (results written before it existed)."""
    names = lf.collect_schema().names()
    if ENDED_COLUMN not in names or "game_index" not in names:
        return None
    stopped = (
        lf.filter((pl.col("seat") == 1) & (pl.col(ENDED_COLUMN) != "rules"))
        .select("game_index", ENDED_COLUMN)
        .sort("game_index")
        .collect()
    )
    labels = [c for c in names if c.startswith("label_")]
    causes: list[StopCause] = []
    for cause in sorted(set(stopped[ENDED_COLUMN].to_list())):
        indices = stopped.filter(pl.col(ENDED_COLUMN) == cause)["game_index"].to_list()
        low, high = wilson_interval(len(indices), games, confidence)
        held = _labels_held(lf, labels, cause) if labels else {}
        text = ENDED_BY_TEXT.get(cause, f"stopped: {cause}")
        causes.append(
            StopCause(cause, len(indices), len(indices) / games, low, high, text, indices[:LISTED_GAMES], held)
        )
    bad = stopped.height
    low, high = wilson_interval(games - bad, games, confidence)
    bad_low, bad_high = wilson_interval(bad, games, confidence)
    return Completion(
        games=games,
        by_rules=games - bad,
        rate=(games - bad) / games,
        ci_low=low,
        ci_high=high,
        not_by_rules=bad,
        not_by_rules_share=bad / games,
        not_by_rules_ci_low=bad_low,
        not_by_rules_ci_high=bad_high,
        interval="wilson",
        confidence=confidence,
        win_rates_include_them=True,
        by_cause=causes,
    )


def _labels_held(lf: pl.LazyFrame, labels: list[str], cause: str) -> dict[str, dict[str, int]]:
    """Per label column (prefix removed): label -> seats holding it in the games ``cause`` ended."""
    rows = lf.filter(pl.col(ENDED_COLUMN) == cause).select(labels).collect()
    out: dict[str, dict[str, int]] = {}
    for col in labels:
        counts = rows.group_by(col).len().sort(["len", col], descending=[True, False])
        out[col[len("label_") :]] = {str(k): int(n) for k, n in counts.iter_rows()}
    return out


def completion_lines(c: dict[str, Any], replay: Any = None) -> list[str]:
    """The lines the terminal, the report and ``check`` print for a summary's ``completion`` dict
    when games did not end by the rules (none otherwise), e.g. "3 of 5,000 games (0.06%, 95% CI
    0.02-0.18%) stopped at the turn cap before the game's end". ``replay(game_index) -> command``
    adds a replay line per listed game."""
    if not c or not c.get("not_by_rules"):
        return []
    games = int(c["games"])
    level = f"{100 * float(c.get('confidence', 0.95)):g}%"
    lines = []
    for cause in c["by_cause"]:
        lines.append(
            f"{cause['games']:,} of {games:,} games ({100 * cause['share']:.2f}%, {level} CI "
            f"{100 * cause['ci_low']:.2f}-{100 * cause['ci_high']:.2f}%) {cause['text']}"
        )
        for label, held in cause.get("labels", {}).items():
            lines.append(f"  {label} in those games (seats): " + ", ".join(f"{k} {n}" for k, n in held.items()))
        if replay is not None:
            for i in cause["game_indices"]:
                lines.append(f"  replay game {i}: {replay(i)}")
            if cause["games"] > len(cause["game_indices"]):
                lines.append(
                    f"  ... and {cause['games'] - len(cause['game_indices'])} more (ended_by in results.parquet)"
                )
    included = "include" if c.get("win_rates_include_them", True) else "exclude"
    lines.append(f"the win rates {included} these games, scored as the safety stop left them")
    return lines
