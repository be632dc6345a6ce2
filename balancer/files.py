"""What kind of YAML file a path is, from its top-level keys: a rule variant, a study, a fragment (and
the files extending it), a sweep or a tune file. Reads files; loads no study, sweep or tune
(:mod:`balancer.catalog` describes each kind in one line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from balancer.config import ConfigError, read_yaml_mapping


def is_study(head: Any) -> bool:
    """Whether a parsed YAML mapping is a study file rather than a rule variant: it has ``study:``, or
    ``runs:`` and ``variants:`` without a variant's ``extends:`` or ``variant:`` (a study whose name was
    left out is told so, not given a page of missing rule keys)."""
    return isinstance(head, dict) and (
        "study" in head or ("runs" in head and "variants" in head and "extends" not in head and "variant" not in head)
    )


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
