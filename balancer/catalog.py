"""Each YAML file's one line in ``balancer games``: a rule variant (name, player counts), a study (runs,
variants), a fragment (the files extending it), a sweep or a tune file, or why it is none of them.
It loads studies, sweeps and tunes to describe them, so it stands above those commands
(:mod:`balancer.files` says what kind a file is). Reads files; plays nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from balancer.config import ConfigError, load_config
from balancer.files import fragment_users, is_study, is_sweep_or_tune, read_yaml_head


def load_sweep_or_tune(path: Path, head: dict[str, Any]) -> Any:
    """Load a sweep or tune file without playing (no probe game): SweepError/ConfigError on a problem."""
    from balancer.sweep import load_sweep
    from balancer.tune import load_tune

    return load_sweep(path, probe=False) if "sweep" in head else load_tune(path, probe=False)


BRIEF_LIST = 40
"""In a brief line (``balancer games``), a list longer than this many characters is given as its count."""


def listed(names: Any, what: str, brief: bool = False, named: bool = True) -> str:
    """``"<what> a, b"`` (``named``: after the word ``what``, else the names alone), or in a ``brief``
    line, when the names are longer than :data:`BRIEF_LIST` characters, their count (``"35 runs"``:
    ``balancer validate FILE`` names them all)."""
    names = [str(n) for n in names]
    text = ", ".join(names)
    if brief and len(text) > BRIEF_LIST:
        return f"{len(names)} {what}"
    return f"{what} {text}" if named else text


def describe_sweep_or_tune(path: Path, head: dict[str, Any], brief: bool = False) -> str:
    """A sweep's line (paths, points, runs) or a tune's (space, candidates, runs); ``brief``: long
    lists given as counts (:func:`listed`)."""
    from balancer.sweep import SweepError

    kind = "sweep" if "sweep" in head else "tune"
    try:
        plan = load_sweep_or_tune(path, head)
    except (SweepError, ConfigError) as exc:
        return f"INVALID {kind}: {str(exc).splitlines()[0]}"
    if kind == "sweep":
        swept = " x ".join(plan.values) if not brief or len(" x ".join(plan.values)) <= BRIEF_LIST else None
        return (
            f"sweep {plan.sweep.sweep}: {swept or f'{len(plan.values)} paths'} ({len(plan.points)} points); "
            f"{listed(plan.sweep.runs, 'runs', brief)}"
        )
    size = plan.space_size
    return (
        f"tune {plan.tune.tune}: {listed(plan.tune.space, 'paths', brief, named=False)} "
        f"({f'{size:,}' if size else 'continuous'} candidates); {listed(plan.tune.runs, 'runs', brief)}"
    )


def describe_yaml(path: Path, brief: bool = False) -> str:
    """One line for ``balancer games``: a rule variant (name, player counts), a study (runs and
    variants), a fragment, a sweep or tune file, or why the file is none of them; ``brief``: long
    lists given as counts (:func:`listed`)."""
    from balancer.sim.runner import counts_text
    from balancer.study import StudyError, load_study

    head = read_yaml_head(path)  # None for bad YAML: load_config below says where (line:column)
    if is_sweep_or_tune(head):
        return describe_sweep_or_tune(path, head, brief)
    if is_study(head):
        try:
            study, _ = load_study(path)
        except StudyError as exc:
            return f"INVALID study: {str(exc).splitlines()[0]}"
        return f"study {study.study}: {listed(study.runs, 'runs', brief)}; {listed(study.variants, 'variants', brief)}"
    users = fragment_users(path, head)
    if users:
        return f"fragment, extended by {listed((u.name for u in users), 'files', brief, named=False)}"
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        return f"INVALID: {str(exc).splitlines()[0]}"
    return f"{getattr(cfg, 'variant', '')}  players {counts_text(getattr(cfg, 'player_counts', None))}"
