"""What kind of YAML file a path is, and its one line in ``balancer games``: a rule variant (name,
player counts), a study (runs, variants), a fragment (the files extending it), a sweep or a tune
file, or why it is none of them. Reads files; plays nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from balancer.api import is_study
from balancer.config import ConfigError, load_config, read_yaml_mapping


def read_yaml_head(path: Path) -> Any:
    """The top-level mapping of ``path`` (:func:`balancer.config.read_yaml_mapping`: size limit,
    safe loading), or None when it cannot be read, parsed or is not a mapping (the loaders say why)."""
    try:
        return read_yaml_mapping(path)
    except ConfigError:
        return None


def extends_of(path: Path) -> str | None:
    """The ``extends:`` value of a YAML file, or None (unreadable files included)."""
    data = read_yaml_head(path)
    return data.get("extends") if isinstance(data, dict) else None


def fragment_users(path: Path, head: Any) -> list[Path]:
    """The sibling YAML files that extend ``path`` when it is a fragment (a mapping without ``game:``
    or ``extends:``, e.g. Águeda's solo.yaml); [] otherwise."""
    if not isinstance(head, dict) or "game" in head or "extends" in head or "study" in head:
        return []
    return sorted(other for other in path.parent.glob("*.yaml") if other != path and extends_of(other) == path.name)


def is_sweep_or_tune(head: object) -> bool:
    """Whether a parsed YAML file is a sweep file (``sweep:``) or a tune file (``tune:``)."""
    return isinstance(head, dict) and ("sweep" in head or "tune" in head) and "game" not in head


def load_sweep_or_tune(path: Path, head: dict[str, Any]) -> Any:
    """Load a sweep or tune file without playing (no probe game): SweepError/ConfigError on a problem."""
    from balancer.sweep import load_sweep
    from balancer.tune import load_tune

    return load_sweep(path, probe=False) if "sweep" in head else load_tune(path, probe=False)


def describe_sweep_or_tune(path: Path, head: dict[str, Any]) -> str:
    """A sweep's line (paths, points, runs) or a tune's (space, candidates, runs)."""
    from balancer.sweep import SweepError

    kind = "sweep" if "sweep" in head else "tune"
    try:
        plan = load_sweep_or_tune(path, head)
    except (SweepError, ConfigError) as exc:
        return f"INVALID {kind}: {str(exc).splitlines()[0]}"
    if kind == "sweep":
        return f"sweep {plan.sweep.sweep}: {' x '.join(plan.values)} ({len(plan.points)} points); runs {', '.join(plan.sweep.runs)}"
    size = plan.space_size
    return (
        f"tune {plan.tune.tune}: {', '.join(plan.tune.space)} ({f'{size:,}' if size else 'continuous'} candidates); "
        f"runs {', '.join(plan.tune.runs)}"
    )


def describe_yaml(path: Path) -> str:
    """One line for ``balancer games``: a rule variant (name, player counts), a study (runs and
    variants), a fragment, a sweep or tune file, or why the file is none of them."""
    from balancer.sim.runner import counts_text
    from balancer.study import StudyError, load_study

    head = read_yaml_head(path)  # None for bad YAML: load_config below says where (line:column)
    if is_sweep_or_tune(head):
        return describe_sweep_or_tune(path, head)
    if is_study(head):
        try:
            study, _ = load_study(path)
        except StudyError as exc:
            return f"INVALID study: {str(exc).splitlines()[0]}"
        return f"study {study.study}: runs {', '.join(study.runs)}; variants {', '.join(study.variants)}"
    users = fragment_users(path, head)
    if users:
        return f"fragment, extended by {', '.join(u.name for u in users)}"
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        return f"INVALID: {str(exc).splitlines()[0]}"
    return f"{getattr(cfg, 'variant', '')}  players {counts_text(getattr(cfg, 'player_counts', None))}"
