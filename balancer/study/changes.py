"""The "changes" table of a study: for each figure, every category's change from one variant to the
next, published against ours (a paired difference, since both variants ran with the same seed).

With more than two variants a change table holds one block per *consecutive* pair in the study's
order (easy -> normal, normal -> hard, hard -> expert: each step of a ladder of variants), every
row carrying its own ``from_variant`` and ``to_variant``; the report heads each block with them."""

from __future__ import annotations

from typing import Any

from balancer.core.metrics import spec_of
from balancer.core.registry import metric_specs_of
from balancer.sim.results import scan_results
from balancer.stats.paired import adjust_family, paired_differences

from .runner import StudyResult


def _verdict(ours: dict[str, Any], published: float | None) -> tuple[str, str]:
    """(verdict, css class): does our paired change go the published way?"""
    if published is None:
        return ("no published value", "unclear")
    if published == 0:
        return (
            "published: no change" + ("; ours changed" if ours["significant"] else "; ours too"),
            "disagree" if ours["significant"] else "agree",
        )
    if not ours["significant"]:
        return ("not significant", "unclear")
    same = (ours["difference"] > 0) == (published > 0)
    return ("agrees" if same else "opposite direction", "agree" if same else "disagree")


def study_changes(result: StudyResult, confidence: float = 0.95) -> dict[int, list[dict[str, Any]]]:
    """Figure index -> rows ``{category, from_variant, to_variant, published, diff, ci_low, ci_high,
    p_value, p_adjusted, significant, family_size, test, verdict, css}`` for each pair of consecutive
    variants of the study, grouped by pair in study order (all rows of the first pair, then the
    second, ...). Differences are fractions for win rates and the metric's unit for metrics;
    ``published`` likewise. The rows of one figure's table are one family: their p-values are
    Holm-adjusted together (:func:`balancer.stats.paired.adjust_family`; ``family_size`` rows tested)
    and a change counts as significant (in ``significant`` and the verdict) on its adjusted p-value."""
    labels = list(result.study.variants)
    paired_cache: dict[tuple[str, str, str], dict[str, Any]] = {}
    out: dict[int, list[dict[str, Any]]] = {}
    for i, fig in enumerate(result.study.figures):
        rows: list[dict[str, Any]] = []
        if fig.show.startswith("matchups:"):  # a matrix, not a list of categories: no changes table
            out[i] = rows
            continue
        for a, b in zip(labels, labels[1:]):
            key = (fig.run, a, b)
            if key not in paired_cache:
                paired_cache[key] = paired_differences(
                    scan_results(result.cells[(fig.run, a)].out_dir),
                    scan_results(result.cells[(fig.run, b)].out_dir),
                    confidence,
                )
            diffs = paired_cache[key]
            pub = fig.published or {}
            if fig.show == "seat_win_rate":
                items = [(f"seat {r['seat']}", r, r["seat"] - 1) for r in diffs["seat_win_rate"]]
            elif fig.show == "agent_win_rate":
                items = [(r["agent"], r, r["agent"]) for r in diffs["agent_win_rate"]]
            else:
                name = fig.show.split(":", 1)[1]
                specs = metric_specs_of(result.cells[(fig.run, a)].meta or {"game": result.study.game})
                items = [(spec_of(name, specs).label, r, None) for r in diffs["metrics"] if r["name"] == name]
            for category, r, key_pub in items:
                pa, pb = pub.get(a), pub.get(b)
                if fig.show == "seat_win_rate" and isinstance(pa, list) and isinstance(pb, list):
                    published = (pb[key_pub] - pa[key_pub]) / 100
                elif (
                    fig.show == "agent_win_rate"
                    and isinstance(pa, dict)
                    and isinstance(pb, dict)
                    and key_pub in pa
                    and key_pub in pb
                ):
                    published = (pb[key_pub] - pa[key_pub]) / 100
                elif isinstance(pa, (int, float)) and isinstance(pb, (int, float)):
                    published = float(pb) - float(pa)
                else:
                    published = None
                rows.append(
                    {
                        "category": category,
                        "from_variant": a,
                        "to_variant": b,
                        "published": published,
                        "diff": r["difference"],
                        "ci_low": r["ci_low"],
                        "ci_high": r["ci_high"],
                        "p_value": r["p_value"],
                        "test": r["test"],
                        "identical": r["identical"],
                        "significant": r["significant_alone"],
                        "difference": r["difference"],
                    }
                )
        family = adjust_family(rows, confidence)
        for row in rows:
            row["family_size"] = family["family_size"]
            row["verdict"], row["css"] = _verdict(row, row["published"])
        out[i] = rows
    return out
