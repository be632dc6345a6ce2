"""Reading a history with the filters of ``balancer history``: ``--study``, ``--number``, ``--since``,
``--last`` (:func:`load_page`: what the page draws, read with memory bounded by it)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import polars as pl

from .store import HistoryError, fetch_rows, opened, read_history, values_of


def parse_since(since: str) -> datetime | str:
    """A ``--since`` value: an ISO date or time (``2026-12-01``, ``2026-12-01T10:00``; UTC when no
    zone is given) as a datetime, else a commit sha prefix (4 to 40 hex digits) as a string. Raises
    ValueError naming ``--since`` otherwise."""
    try:
        when = datetime.fromisoformat(since)
    except ValueError:
        try:
            when = datetime.combine(date.fromisoformat(since), datetime.min.time())
        except ValueError:
            when = None
    if when is not None:
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    text = since.strip().lower()
    if 4 <= len(text) <= 40 and all(c in "0123456789abcdef" for c in text):
        return text
    raise ValueError(f"--since {since!r}: give a date (2026-12-01), a time (2026-12-01T10:00) or a commit sha prefix")


def select(
    frame: pl.DataFrame, numbers: Sequence[str] = (), since: str | None = None, where: str = "history"
) -> pl.DataFrame:
    """The rows of a history frame kept by the filters: ``numbers`` (glob patterns matched against the
    number, ``seat_win_rate:3``, and against ``run/variant/number``; any may match) and ``since``
    (:func:`parse_since`: events recorded at or after a time, or from the first event at a commit whose
    sha starts with the prefix). Raises ValueError (one line naming the option and ``where``) for a
    filter that keeps nothing of a history that has rows: a pattern no number matches, a sha prefix no
    event has, a time after the last event."""
    if numbers and not frame.is_empty():
        names = frame.select(pl.concat_str(["run", "variant", "number"], separator="/").alias("full"), "number")
        keep = [
            any(fnmatch.fnmatchcase(n, pat) or fnmatch.fnmatchcase(full, pat) for pat in numbers)
            for full, n in names.iter_rows()
        ]
        kept = frame.filter(pl.Series(keep, dtype=pl.Boolean))
        if kept.is_empty():
            known = ", ".join(sorted(set(frame["number"].to_list())))
            shown = " ".join(f"--number {pat!r}" for pat in numbers)
            raise ValueError(f"{shown}: matches no number of {where} (its numbers: {known})")
        frame = kept
    if since is not None and not frame.is_empty():
        when = parse_since(since)
        if isinstance(when, datetime):
            # compare in UTC: DuckDB hands TIMESTAMPTZ to polars in the session's zone (Etc/UTC, ...),
            # which polars will not compare with a literal of another zone name
            when = when.astimezone(UTC)
            kept = frame.filter(pl.col("recorded_at").dt.convert_time_zone("UTC") >= when)
            if kept.is_empty():
                last = frame["recorded_at"].dt.convert_time_zone("UTC").max()
                assert isinstance(last, datetime)  # recorded_at is NOT NULL
                raise ValueError(
                    f"--since {since}: no event of {where} was recorded at or after {when:%Y-%m-%d %H:%M} UTC "
                    f"(the last was at {last:%Y-%m-%d %H:%M} UTC)"
                )
            frame = kept
        else:
            hits = frame.filter(pl.col("commit_sha").str.starts_with(when))
            if hits.is_empty():
                raise ValueError(f"--since {since}: no event of {where} is at a commit starting with {when}")
            first = int(hits["event"].min())  # type: ignore[arg-type]
            frame = frame.filter(pl.col("event") >= first)
    return frame


def load(
    path: Path | str, study: str | None = None, numbers: Sequence[str] = (), since: str | None = None
) -> tuple[pl.DataFrame, dict[str, str]]:
    """(the filtered history of ``path``, its meta). ``study``: the study the history must hold (a
    history holds one study); HistoryError naming the file when it holds another."""
    frame, meta = read_history(path)
    if study is not None and meta.get("study") != study:
        raise HistoryError(f"{path}: a history of study {meta.get('study')!r}, not {study!r}")
    return select(frame, numbers, since, str(path)), meta


LAST = 50
"""Commits ``balancer history`` draws by default (``--last``; 0 draws every commit)."""
ENDS_SQL = """
WITH p AS (
    SELECT event, run, variant, number, any_value(event_kind) AS event_kind,
           bool_or(verdict = 'fail') AS failed,
           bool_or(NOT coalesce(powered, true)) AS weak,
           arg_min(verdict, CASE WHEN test = 'expect' THEN 1 ELSE 0 END) AS verdict
    FROM main.history GROUP BY event, run, variant, number
), a AS (
    SELECT run, variant, number,
           coalesce(min(event) FILTER (WHERE event_kind = 'baseline'), min(event)) AS anchor,
           max(event) AS latest
    FROM p GROUP BY run, variant, number
)
SELECT a.run, a.variant, a.number, a.anchor, a.latest,
       count(*) FILTER (WHERE p.event > a.anchor) AS n_later,
       count(*) FILTER (WHERE p.event > a.anchor AND p.event_kind = 'check') AS n_checks,
       coalesce(bool_and(p.verdict = 'pass' AND NOT p.failed)
                FILTER (WHERE p.event > a.anchor AND p.event_kind = 'check'), true) AS all_passed,
       count(*) FILTER (WHERE p.event > a.anchor AND p.event_kind = 'check' AND p.weak) AS n_weak
FROM a JOIN p USING (run, variant, number)
GROUP BY a.run, a.variant, a.number, a.anchor, a.latest
"""
"""Per series, in DuckDB over the whole history: the drift's anchor (its first baseline event, else
its first event) and latest event, how many points lie after the anchor and how many of them are
checks, whether every such check passed (:func:`balancer.stats.drift.points`' rule per point) and how
many of them were underpowered (``powered`` false: the check could not detect a change of its tolerance)."""
NARROW = ("event", "event_kind", "commit_sha", "run", "variant", "number", "kind", "test", "estimate", "variance",
          "games", "seed", "verdict", "tolerance")  # fmt: skip
"""The columns of every event the drift needs (the whole history, without its text)."""


@dataclass(frozen=True)
class Page:
    """What the history page needs, read with memory bounded by what it draws:
    ``frame``: the rows of the drawn events (the last commits, ``since`` and ``numbers`` applied);
    ``every``: the drift's input, whatever the filters: the :data:`NARROW` columns of each series'
    anchor and latest events, with the counts of :data:`ENDS_SQL` over the whole history (``_anchor``,
    ``_later``, ``_checks``, ``_passed``, ``_weak``), so that its size does not grow with the history; ``values``: the per-game values of the drawn events and of each series' anchor and
    latest point; ``meta``; ``commits``: (drawn, in the history or since ``since``)."""

    frame: pl.DataFrame
    every: pl.DataFrame
    values: dict[tuple[int, str, str, str], tuple[int, np.ndarray]]
    meta: dict[str, str]
    commits: tuple[int, int]


def _commit_keys(events: pl.DataFrame) -> list[list[int]]:
    """The events grouped by commit in order (an event without a commit is a commit of its own)."""
    groups: list[list[int]] = []
    index: dict[object, int] = {}
    for event, sha in events.select("event", "commit_sha").iter_rows():
        key = sha if sha is not None else ("event", event)
        if key in index:
            groups[index[key]].append(int(event))
        else:
            index[key] = len(groups)
            groups.append([int(event)])
    return groups


def load_page(
    path: Path | str,
    study: str | None = None,
    numbers: Sequence[str] = (),
    since: str | None = None,
    last: int = LAST,
) -> Page:
    """Read what the history page draws (:class:`Page`): in DuckDB, the events are listed, ``since``
    applied, the last ``last`` commits kept (0: all), and only their rows fetched; for the drift, the
    anchor's and latest event's rows of each series and counts aggregated in DuckDB. HistoryError / ValueError as :func:`load`."""
    from balancer.stats.drift import SERIES

    path = Path(path)
    if last < 0:
        raise ValueError(f"--last {last}: give a number of commits, 0 for all")
    with opened(path) as (con, meta):
        if study is not None and meta.get("study") != study:
            raise HistoryError(f"{path}: a history of study {meta.get('study')!r}, not {study!r}")
        events = con.sql(
            "SELECT event, min(commit_sha) AS commit_sha, min(recorded_at) AS recorded_at FROM main.history "
            "GROUP BY event ORDER BY event"
        ).pl()
        if since is not None and not events.is_empty():
            events = select(events, (), since, str(path))
        groups = _commit_keys(events)
        drawn = groups[-last:] if last else groups
        kept = sorted(e for g in drawn for e in g)
        frame = fetch_rows(con, path, "event IN (SELECT unnest(?::INTEGER[]))", [kept])
        frame = select(frame, numbers, None, str(path))
        ends = con.sql(ENDS_SQL).pl()
        at = sorted({int(e) for col in ("anchor", "latest") for e in ends[col].to_list()})
        every = fetch_rows(con, path, "event IN (SELECT unnest(?::INTEGER[]))", [at], columns=NARROW)
        summary = ends.select(
            *SERIES,
            pl.col("anchor").alias("_anchor"),
            pl.col("n_later").alias("_later"),
            pl.col("n_checks").alias("_checks"),
            pl.col("all_passed").alias("_passed"),
            pl.col("n_weak").alias("_weak"),
        )
        if not every.is_empty():
            every = every.join(summary, on=list(SERIES), how="inner")
        wanted = set(kept) | set(at)
        values = values_of(con, path, sorted(wanted))
    return Page(frame, every, values, meta, (len(drawn), len(groups)))
