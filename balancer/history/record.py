"""What one event of the history holds: the commit the study was checked at (from ``git``), and the
rows of a finished check or of a saved baseline (:func:`check_rows`, :func:`baseline_rows`)."""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from balancer.version import __version__

if TYPE_CHECKING:
    from balancer.check.run import CheckResult
    from balancer.study.model import CheckSettings

Z95 = 1.959963984540054
"""The normal quantile of a 95% two-sided interval (the estimate's band on the history page)."""
GIT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Commit:
    """The commit a study file's repository is at: full sha, branch (None when detached and no CI
    variable names it), author time (UTC), subject line, and whether tracked files differ from it."""

    sha: str
    branch: str | None
    time: datetime
    subject: str
    dirty: bool


def _git(directory: Path, *args: str) -> str | None:
    """``git -C directory args...``'s stdout stripped, or None when git is missing or fails."""
    try:
        out = subprocess.run(
            ["git", "-C", str(directory), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def commit_of(path: Path | str) -> Commit | None:
    """The commit of the git repository holding ``path`` (a file or directory), or None when it lies
    in none (or git is not installed). A detached HEAD (as CI checks out) takes its branch from
    ``GITHUB_HEAD_REF`` / ``GITHUB_REF_NAME`` / ``CI_COMMIT_REF_NAME`` when set."""
    p = Path(path).absolute()
    directory = p if p.is_dir() else p.parent
    log = _git(directory, "log", "-1", "--format=%H%x00%at%x00%s")
    if not log:
        return None
    sha, at, subject = (log.split("\x00") + ["", ""])[:3]
    branch = _git(directory, "rev-parse", "--abbrev-ref", "HEAD")
    if branch in (None, "HEAD"):
        branch = next(
            (os.environ[k] for k in ("GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME") if os.environ.get(k)),
            None,
        )
    status = _git(directory, "status", "--porcelain", "--untracked-files=no")
    return Commit(sha, branch, datetime.fromtimestamp(int(at), UTC), subject, bool(status))


def study_identity(path: Path | str) -> str:
    """Which study file a history belongs to (kept in the history as ``study_id``; issue 52): a shipped
    study as ``shipped:<game>/<name>``; a study in a git repository as ``git:<path from the repository's
    top>`` (the same in every clone and CI checkout); else ``file:<absolute path>``. Two study files
    with the same ``study:`` name are two studies; the same file edited over commits is one."""
    from balancer.data import shipped_name

    p = Path(path)
    shipped = shipped_name(p)
    if shipped is not None:
        return f"shipped:{shipped}"
    absolute = p.resolve()
    top = _git(absolute.parent, "rev-parse", "--show-toplevel")
    if top:
        try:
            return f"git:{absolute.relative_to(Path(top).resolve()).as_posix()}"
        except ValueError:
            pass
    return f"file:{absolute.as_posix()}"


def file_sha256(path: Path | str) -> str:
    """Hex SHA-256 of a file's bytes (the study file's hash in the history)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def interval95(mean: float, variance: float, games: int) -> tuple[float, float]:
    """The normal 95% interval of a mean of ``games`` per-game values with sample variance ``variance``."""
    if games < 2 or not math.isfinite(variance):
        return math.nan, math.nan
    half = Z95 * math.sqrt(variance / games)
    return mean - half, mean + half


def _event_fields(kind: str, study_path: Path, study: str, game: str) -> dict[str, Any]:
    commit = commit_of(study_path)
    return {
        "event_kind": kind,
        "recorded_at": datetime.now(UTC),
        "commit_sha": commit.sha if commit else None,
        "branch": commit.branch if commit else None,
        "commit_time": commit.time if commit else None,
        "commit_subject": commit.subject if commit else None,
        "dirty": commit.dirty if commit else None,
        "study": study,
        "game": game,
        "study_sha256": file_sha256(study_path),
        "balancer_version": __version__,
    }


def _none(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def check_rows(
    result: CheckResult, study_path: Path | str
) -> tuple[list[dict[str, Any]], dict[tuple[str, str, str], tuple[int, np.ndarray]]]:
    """(one history row per item of a finished check, the per-game values played per number)."""
    from balancer.stats.sequential import LOWER, UPPER

    study_path = Path(study_path)
    base = _event_fields("check", study_path, result.study.study, result.study.game)
    base["warnings"] = "; ".join(result.warnings) or None
    rows = []
    for i in result.items:
        cell = result.cells.get((i.run, i.variant), {})
        low, high = interval95(i.now, i.now_var, i.games)
        lows = [ref for ref, side in i.sides if side == LOWER]
        highs = [ref for ref, side in i.sides if side == UPPER]
        rows.append(
            base
            | {
                "run": i.run,
                "variant": i.variant,
                "config_sha256": cell.get("config_sha256"),
                "engine_sha256": cell.get("engine_sha256"),
                "variant_changed": cell.get("variant_changed"),
                "number": i.number,
                "kind": i.kind,
                "test": i.test,
                "estimate": _none(i.now),
                "ci_low": _none(low),
                "ci_high": _none(high),
                "variance": _none(i.now_var),
                "games": i.games,
                "seed": result.seed,
                "baseline_value": i.baseline_mean,
                "baseline_games": cell.get("baseline_games"),
                "baseline_variance": i.baseline_var,
                "target_low": lows[0] if i.test == "expect" and lows else None,
                "target_high": highs[0] if i.test == "expect" and highs else None,
                "difference": _none(i.difference),
                "difference_low": _none(i.ci_low),
                "difference_high": _none(i.ci_high),
                "tolerance": i.tolerance,
                "detectable": _none(i.detectable),
                "powered": i.powered,
                "verdict": i.verdict or "undecided",
            }
        )
    values = {key: (result.seed, v) for key, v in result.values.items()}
    return rows, values


def baseline_rows(
    baseline: Mapping[str, Any],
    study_path: Path | str,
    settings: CheckSettings,
    values: Mapping[tuple[str, str, str], np.ndarray] | None = None,
) -> tuple[list[dict[str, Any]], dict[tuple[str, str, str], tuple[int, np.ndarray]]]:
    """(one history row per tracked number of a saved baseline dict, its per-game values by number):
    verdict ``baseline``, the estimate the baseline's own mean."""
    from balancer.check.run import _tolerance
    from balancer.check.values import is_tracked, kind_of

    study_path = Path(study_path)
    base = _event_fields("baseline", study_path, str(baseline["study"]), str(baseline["game"]))
    rows = []
    kept: dict[tuple[str, str, str], tuple[int, np.ndarray]] = {}
    for cell in baseline["cells"]:
        for key, num in cell["numbers"].items():
            if not is_tracked(key, settings.metrics):
                continue
            mean, var, n = float(num["mean"]), float(num["variance"]), int(num["games"])
            low, high = interval95(mean, var, n)
            rows.append(
                base
                | {
                    "run": cell["run"],
                    "variant": cell["variant"],
                    "config_sha256": cell["config_sha256"],
                    "engine_sha256": cell.get("engine_sha256"),
                    "variant_changed": False,
                    "number": key,
                    "kind": num.get("kind") or kind_of(key),
                    "test": "saved",
                    "estimate": mean,
                    "ci_low": _none(low),
                    "ci_high": _none(high),
                    "variance": var,
                    "games": n,
                    "seed": int(cell["seed"]),
                    "baseline_value": mean,
                    "baseline_games": n,
                    "baseline_variance": var,
                    "difference": 0.0,
                    "tolerance": _tolerance(key, var, settings),
                    "verdict": "baseline",
                }
            )
            if values is not None and (cell["run"], cell["variant"], key) in values:
                kept[(cell["run"], cell["variant"], key)] = (
                    int(cell["seed"]),
                    values[(cell["run"], cell["variant"], key)],
                )
    return rows, kept
