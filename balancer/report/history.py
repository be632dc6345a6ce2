"""The history page (``balancer history``): one self-contained HTML page drawing every tracked number
of a study across commits, with the significant moves between consecutive points and the cumulative
drift since the baseline (computed by :mod:`balancer.stats.drift`; nothing is computed here).

Every name from the history (study, cells, numbers, commit subjects, branches) is escaped by jinja2's
autoescape; only the SVG figures made here are marked safe.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl
from markupsafe import Markup

from balancer.numtext import number_text
from balancer.report import figures as figs
from balancer.report import pages
from balancer.report.figures import write_figure_files
from balancer.report.figures.history import Panel, history_figure, short
from balancer.report.render import ReportOutputError, write_atomically

TEMPLATE_NAME = "history.html.j2"


def fmt_value(value: float | None, kind: str) -> str:
    """A number's value as text: win rates in percent with one decimal, metrics with three digits."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return number_text(100 * value, ".1f") + "%" if kind == "win_rate" else number_text(value, ".3g")


def fmt_move(value: float | None, kind: str) -> str:
    """A signed change: ``+2.1 pp`` for win rates, ``+0.31`` for metrics."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return number_text(100 * value, "+.1f") + " pp" if kind == "win_rate" else number_text(value, "+.3g")


PAGE_STARTS = (b"<!doctype html", b"<html")
"""How a page this module (or any HTML writer) wrote starts, lower-cased: an existing ``--out`` that
starts otherwise is not overwritten."""


def check_page_target(history: Path | str, out: Path | str) -> None:
    """Raise ReportOutputError (starting with ``out``) when writing the page to ``out`` would destroy
    something: the history file itself (or its ``.lock``/``.wal``), or an existing file that is not an
    HTML page (a typo such as ``-o results/history/ci.duckdb``). An HTML page is replaced, so drawing
    the history again (``make history``) needs no flag. Creates nothing."""
    out, history = Path(out), Path(history)
    if out.exists() and history.exists():
        for own in (history, history.with_name(history.name + ".lock"), history.with_name(history.name + ".wal")):
            if own.exists() and out.samefile(own):
                raise ReportOutputError(f"{out}: is the history {history} or its lock; give an HTML file")
    if out.is_file() and out.stat().st_size > 0:
        with out.open("rb") as fh:
            head = fh.read(64).lstrip().lower()
        if not head.startswith(PAGE_STARTS):
            raise ReportOutputError(
                f"{out}: exists and is not an HTML page; not overwritten (remove it or choose another file)"
            )


def _panels(pts: pl.DataFrame, drift: pl.DataFrame) -> list[Panel]:
    """A panel per tracked number (sorted by run, variant, number) with its drift flag and the event
    the flag is at (the drift's latest point)."""
    flags: dict[tuple[str, str, str], tuple[str, int | None]] = {}
    if not drift.is_empty():
        flags = {
            (r["run"], r["variant"], r["number"]): (r["flag"] or "", r["latest_event"])
            for r in drift.iter_rows(named=True)
        }
    grouped: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in pts.sort("event").iter_rows(named=True):
        grouped.setdefault((row["run"], row["variant"], row["number"]), []).append(row)
    out = []
    for key in sorted(grouped):
        flag, at = flags.get(key, ("", None))
        out.append(Panel(f"{key[0]}/{key[1]}: {key[2]}", grouped[key], flag, at))
    return out


def _step_rows(steps: pl.DataFrame) -> list[dict[str, Any]]:
    if steps.is_empty():
        return []
    out = []
    for r in steps.filter(pl.col("significant")).sort(["to_event", "run", "variant", "number"]).iter_rows(named=True):
        k = r["kind"]
        out.append(
            {
                "number": f"{r['run']}/{r['variant']}/{r['number']}",
                "from": f"{short(r['from_commit'])} (#{r['from_event']})",
                "to": f"{short(r['to_commit'])} (#{r['to_event']})",
                "before": fmt_value(r["from_estimate"], k),
                "after": fmt_value(r["to_estimate"], k),
                "move": fmt_move(r["difference"], k),
                "ci": f"{fmt_move(r['ci_low'], k)} to {fmt_move(r['ci_high'], k)}",
                "test": r["test"],
                "p": f"{r['p_value']:.2g}" if r["p_value"] is not None else "–",
                "q": f"{r['p_holm']:.2g}",
                "up": (r["difference"] or 0) > 0,
            }
        )
    return out


def _drift_rows(drift: pl.DataFrame) -> list[dict[str, Any]]:
    if drift.is_empty():
        return []
    out = []
    for r in drift.sort(["run", "variant", "number"]).iter_rows(named=True):
        k = r["kind"]
        out.append(
            {
                "number": f"{r['run']}/{r['variant']}/{r['number']}",
                "since": f"{short(r['anchor_commit'])} (#{r['anchor_event']})",
                "latest": f"{short(r['latest_commit'])} (#{r['latest_event']})",
                "drift": fmt_move(r["drift"], k),
                "ci": f"{fmt_move(r['ci_low'], k)} to {fmt_move(r['ci_high'], k)}",
                "tolerance": fmt_move(r["tolerance"], k).lstrip("+"),
                "level": f"{100 * r['confidence']:.4g}% (check {r['look']})",
                "checks": r["checks"],
                "all_passed": r["all_passed"],
                "underpowered": int(r.get("underpowered") or 0),
                "flag": r["flag"],
            }
        )
    return out


def in_short(drift_rows: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    """The drift's sentences of the page's "In short" (and of ``balancer history``'s terminal), each
    with whether it is a warning. A number whose checks since the baseline were underpowered (each
    could not detect a change of its tolerance) passed them without showing that it did not drift, so
    "no drift" is not claimed for it: the sentence names such numbers and counts their checks."""
    n = len(drift_rows)
    if not n:
        return [("Too few events to measure a drift: each number needs at least two points.", False)]
    out: list[tuple[str, bool]] = []
    flagged = [r for r in drift_rows if r["flag"] == "drift"]
    if flagged:
        out.append(
            (
                f"{len(flagged)} of {n} numbers drifted beyond their tolerance since the baseline although every "
                f"check on the way passed: {', '.join(r['number'] for r in flagged)}.",
                True,
            )
        )
    weak = [r for r in drift_rows if r["underpowered"] and not r["flag"]]
    if weak:
        checks = sum(int(r["checks"]) for r in drift_rows)
        n_weak = sum(r["underpowered"] for r in drift_rows)
        out.append(
            (
                f"{n_weak} of {checks} checks since the baseline were underpowered (each could not detect a drift "
                f"of its tolerance), so no drift is claimed for {len(weak)} of {n} numbers: "
                f"{', '.join(r['number'] for r in weak)}; they passed without showing that they did not drift.",
                True,
            )
        )
    rest = n - len(flagged) - len(weak)
    if rest and not flagged and not weak:
        out.append((f"No number drifted beyond its tolerance since the baseline unnoticed ({n} numbers).", False))
    elif rest:
        out.append((f"The other {rest} of {n} numbers did not drift beyond their tolerance unnoticed.", False))
    return out


def _events(history: pl.DataFrame) -> list[dict[str, Any]]:
    ev = history.group_by("event").agg(
        pl.first("event_kind"),
        pl.first("commit_sha"),
        pl.first("branch"),
        pl.first("commit_time"),
        pl.first("commit_subject"),
        pl.first("recorded_at"),
        pl.first("warnings"),
        pl.first("dirty"),
        (pl.col("verdict") == "fail").sum().alias("fails"),
        (~pl.col("powered").fill_null(True)).sum().alias("weak"),
        pl.len().alias("numbers"),
    )
    out = []
    for r in ev.sort("event").iter_rows(named=True):
        out.append(
            {
                "event": r["event"],
                "kind": r["event_kind"],
                "commit": short(r["commit_sha"]) + (" (dirty)" if r["dirty"] else ""),
                "branch": r["branch"] or "",
                "when": (r["commit_time"] or r["recorded_at"]).strftime("%Y-%m-%d %H:%M"),
                "subject": r["commit_subject"] or "",
                "verdict": "baseline"
                if r["event_kind"] == "baseline"
                else (f"FAIL ({r['fails']})" if r["fails"] else ("PASS (underpowered)" if r["weak"] else "PASS")),
                "warnings": r["warnings"] or "",
            }
        )
    return out


def figure_stem(study: str) -> str:
    """The figure's file name: ``history-<study>`` with unsafe characters as ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"history-{study}").strip("-")


def figure_caption(study: str, panels: list[Panel], events: int) -> str:
    """The figure's caption (kept in its files' metadata with ``--figures``): what it shows and how."""
    flagged = [p.title for p in panels if p.flag == "drift"]
    return (
        f"Balance history of study {study}: {len(panels)} tracked number{'' if len(panels) == 1 else 's'} across "
        f"{events} event{'' if events == 1 else 's'} (x: commit and date, in the order recorded). Each panel: the "
        "estimate at each commit with its 95% interval as a bar there; dashed: the baseline each check compared "
        "against; diamonds: baselines saved; red crosses: failed checks"
        + (f"; ringed, title in orange: flagged for drift ({', '.join(flagged)})." if flagged else ".")
    )


def render_history(
    history: pl.DataFrame,
    meta: Mapping[str, str],
    pts: pl.DataFrame,
    steps: pl.DataFrame,
    drift: pl.DataFrame,
    out_html: Path,
    source: str,
    filters: str = "",
    figures_dir: Path | None = None,
    alpha: float = 0.05,
    said: list[str] | None = None,
) -> Path:
    """Write the history page to ``out_html`` atomically (and, with ``figures_dir``, its one figure of
    every number as SVG, PNG and PDF, ``history-<study>.*``); return its path. ``history``: the (filtered) rows; ``pts``/``steps``/``drift``: what
    :mod:`balancer.stats.drift` made of them; ``source``: the history file's name as given; ``said``: when
    given, the page's drift sentences (:func:`in_short`) are appended to it as plain text."""
    panels = _panels(pts, drift)
    figure = None
    if panels:
        fig = history_figure(panels)
        events = len({r["event"] for p in panels for r in p.rows})
        study = meta.get("study", "")
        if figures_dir is not None:
            from balancer.outdir import write_atomic
            from balancer.report.publish import CAPTIONS_FILE, listed_files, refuse_users_captions, refuse_users_files

            refuse_users_captions(Path(figures_dir))  # a captions.md of the user's own is never replaced
            stem, caption = figure_stem(study), figure_caption(study, panels, events)
            # nor a figure of the user's under the figure's name (one balancer's captions.md there does not list)
            refuse_users_files(
                [Path(figures_dir) / f"{stem}.{ext}" for ext in ("svg", "png", "pdf")], listed_files(Path(figures_dir))
            )
            write_figure_files(fig, Path(figures_dir), stem, caption)
            listing = f"# Figures: {study or 'balancer'} history\n\n- `{stem}.svg` (`.png`, `.pdf`): {caption}\n"
            write_atomic(Path(figures_dir) / CAPTIONS_FILE, listing.encode("utf-8"))
        figure = {
            "svg": Markup(figs.svg_string(fig)),
            "panels": len(panels),
            "flagged": [p.title for p in panels if p.flag == "drift"],
        }
    drift_rows = _drift_rows(drift)
    n_steps = 0 if steps.is_empty() else steps.height
    summary = in_short(drift_rows)
    if said is not None:
        said.extend(text for text, _ in summary)
    html = (
        pages.environment()
        .get_template(TEMPLATE_NAME)
        .render(
            title=f"Balance history: {meta.get('study', '')}",
            study=meta.get("study", ""),
            game=meta.get("game", ""),
            source=source,
            filters=filters,
            events=_events(history) if not history.is_empty() else [],
            figure=figure,
            moves=_step_rows(steps),
            n_steps=n_steps,
            drift=drift_rows,
            n_drift=len(drift_rows),
            summary=summary,
            alpha=alpha,
        )
    )
    write_atomically(Path(out_html), html)
    return Path(out_html)
