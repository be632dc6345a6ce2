"""``--write``: the winning candidate as a variant file that ``extends:`` the base and sets only the
changed keys, headed by a comment saying how it was found and what the confirmation measured."""

from __future__ import annotations

import math
import os
import secrets
import textwrap
from pathlib import Path

from balancer.config import load_config
from balancer.numtext import number_text
from balancer.outdir import normalised, refuse_foreign
from balancer.paths import changes_text, variant_yaml
from balancer.sweep.targets import is_rate

from .search import TuneResult


def _est_text(name: str, e: dict) -> str:
    if not math.isfinite(e["mean"]):
        return f"{name} -"
    if is_rate(name):
        mean, low, high = (number_text(100 * e[k], ".1f") for k in ("mean", "ci_low", "ci_high"))
        return f"{mean}% ({low} to {high})"
    mean, low, high = (number_text(e[k], ".3g") for k in ("mean", "ci_low", "ci_high"))
    return f"{mean} ({low} to {high})"


def provenance(result: TuneResult, command: str = "") -> list[str]:
    """The comment lines of a tuned variant: the search (file, sampler, rungs, candidates, games) and
    the confirmation (games, seed, seat win rates with intervals, each target's verdict, the base's)."""
    plan, conf = result.plan, result.confirmation
    tune = plan.tune
    rungs = "; ".join(f"{r}: {' -> '.join(f'{g:,}' for g in sizes)} games" for r, sizes in plan.rungs.items())
    lines = [
        f"Tuned by balancer: {command or f'balancer tune {plan.path}'}",
        f"Search: {result.sampler} sampler (Optuna) over {', '.join(tune.space)}; successive halving "
        f"(eta {tune.search.eta}; {rungs}); {len(result.candidates):,} candidates, "
        f"{result.games_search + result.games_response:,} games, common random numbers (seed {tune.seed}).",
        f"Objective: {' + '.join(t.title + (f' (weight {t.target.weight:g})' if t.target.weight != 1 else '') for t in plan.terms)}.",
        f"Found: {changes_text(result.best.values) if result.best else '-'}"
        + ("" if result.changes else " (the base's own values)")
        + ".",
    ]
    if conf is not None:
        for run, run_def in tune.runs.items():
            best = conf.best_estimates[run]
            seats = [f"seat_win_rate:{s}" for s in range(1, run_def.players + 1) if f"seat_win_rate:{s}" in best]
            text = (
                f"Confirmation ({run}, {conf.games[run]:,} fresh games, seed {conf.seed}): seat win rates "
                + ", ".join(_est_text(s, best[s]) for s in seats)
            )
            if conf.base_estimates:
                base = conf.base_estimates[run]
                text += f"; the base {plan.base.cfg.variant} with the same seeds: " + ", ".join(
                    _est_text(s, base[s]) for s in seats
                )
            lines.append(text + ".")
        for v in conf.verdicts:
            lines.append(
                f"Target {v['title']}: {v['verdict']}"
                + (f" (base: {v['base_verdict']})" if v["base_verdict"] else "")
                + "."
            )
        lo, hi = conf.best_objective[1], conf.best_objective[2]
        lines.append(
            f"Objective at the confirmation: {conf.best_objective[0]:.4f} ({lo:.4f} to {hi:.4f})"
            + (f"; base {conf.base_objective[0]:.4f}" if conf.base_objective else "")
            + "."
        )
    out: list[str] = []
    for line in lines:
        out.extend(textwrap.wrap(line, 98, subsequent_indent="  ", break_on_hyphens=False) or [""])
    return out


def tuned_text(result: TuneResult, target: Path | str, command: str = "") -> str:
    """The text of the tuned variant to be written at ``target``: it ``extends:`` the base (a path
    relative to ``target``) and sets only the keys of the paths whose value changed; it sets no
    ``variant:``, so it is named after its file. Raises ValueError when there is no best candidate."""
    if result.best is None:
        raise ValueError("the search measured no candidate; nothing to write")
    if result.refusal is not None:  # only a candidate that passed its confirmation and beat the base
        raise ValueError(f"nothing to write: {result.refusal}")
    plan = result.plan
    return variant_yaml(
        Path(target), plan.base.path, plan.base.resolved.data, result.changes, None, provenance(result, command)
    )


def write_variant(target: Path | str, text: str) -> Path:
    """Write a tuned variant's ``text`` (:func:`tuned_text`) to ``target``, atomically, after checking
    that it loads as a valid variant. Raises ConfigError if it does not, OSError if it cannot be written."""
    target = normalised(target)
    refuse_foreign(target)  # a link planted as the variant is refused, not replaced
    target.parent.mkdir(parents=True, exist_ok=True)
    # a fresh, unguessable name created with O_EXCL | O_NOFOLLOW: a link planted there cannot be followed
    tmp = target.with_name(f".{target.stem}.{os.getpid()}-{secrets.token_hex(4)}.check.yaml")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
        load_config(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


__all__ = ["provenance", "tuned_text", "write_variant"]
