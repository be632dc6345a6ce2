"""YAML paths into a rule variant, and the variant files that set them.

A *YAML path* names one value of a resolved config (the base variant with its ``extends:`` chain
merged), written as the config error messages write key paths: mapping keys joined by ``.`` and
list indices in brackets, e.g. ``seat_bonus.4[3]`` (Citywright's last seat at four players),
``board.row_length`` (Águeda), ``scoring.commercial.tiers[1].points``.

A point of a sweep or a candidate of a tune is the base variant with some paths set to new values.
It is written as a small YAML file that ``extends:`` the base and sets only the changed keys: a
path that runs through a list sets that whole list (``extends:`` replaces lists whole), every
mapping above it is merged key by key. :func:`overlay` computes those keys, :func:`variant_yaml`
writes the file's text, :func:`validate_point` checks a point with the game's config model
before anything is written.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from balancer.config import KeyPath, ResolvedYaml, deep_merge, format_key_path, validation_error_lines

PATH_PATTERN = re.compile(r"^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+|\[\d+\])*$")
"""A YAML path: ``key(.key|[index])*``; keys of letters, digits, ``_`` and ``-``."""


class PathError(ValueError):
    """A YAML path that does not name a value of the base variant; ``str()`` says why (no file)."""


def parse_path(text: str) -> KeyPath:
    """``'seat_bonus.4[3]'`` -> ``('seat_bonus', '4', 3)``. Raises PathError for a malformed path."""
    if not isinstance(text, str) or not PATH_PATTERN.match(text):
        raise PathError(
            f"{text!r} is not a YAML path (keys joined by '.', list indices in brackets: "
            "seat_bonus.4[3], board.row_length)"
        )
    parts: list[Any] = []
    for piece in re.findall(r"\[\d+\]|[^.\[\]]+", text):
        parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return tuple(parts)


def _key_in(mapping: dict, part: str) -> Any:
    """The key of ``mapping`` written ``part`` in a path: itself, or an int/bool key whose text it is
    (YAML ``1: 1`` has an int key); raises KeyError when there is none."""
    if part in mapping:
        return part
    for key in mapping:
        if not isinstance(key, str) and str(key) == part:
            return key
    raise KeyError(part)


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        keys = ", ".join(map(str, value)) or "none"
        return f"a mapping (keys: {keys})"
    if isinstance(value, list):
        return f"a list of {len(value)} value{'s' if len(value) != 1 else ''}"
    return f"the value {value!r}"


def get_path(data: Any, path: KeyPath) -> Any:
    """The value at ``path`` in a resolved config mapping. Raises PathError naming the first part
    that does not exist and what is there instead."""
    current = data
    for depth, part in enumerate(path):
        where = format_key_path(path[:depth])
        if isinstance(part, int):
            if not isinstance(current, list):
                raise PathError(f"{where} is {_describe(current)}, not a list: [{part}] does not exist")
            if part >= len(current):
                raise PathError(
                    f"{where} has {len(current)} value{'s' if len(current) != 1 else ''}: "
                    f"[{part}] does not exist (indices start at 0)"
                )
            current = current[part]
        else:
            if not isinstance(current, dict):
                inside = f" inside {where}" if depth else ""
                raise PathError(f"{_describe(current)}{inside} has no key {part!r}")
            try:
                current = current[_key_in(current, part)]
            except KeyError:
                keys = ", ".join(str(k) for k in current if k != "assumed") or "none"
                place = f"under {where}" if depth else "at the top level"
                raise PathError(f"no key {part!r} {place}; keys there: {keys}") from None
    return current


def set_path(data: dict, path: KeyPath, value: Any) -> dict:
    """A deep copy of ``data`` with the value at ``path`` replaced by ``value`` (the path must exist,
    see :func:`get_path`)."""
    out = copy.deepcopy(data)
    current: Any = out
    for part in path[:-1]:
        current = current[part] if isinstance(part, int) else current[_key_in(current, part)]
    last = path[-1]
    if isinstance(last, int):
        current[last] = value
    else:
        current[_key_in(current, last)] = value
    return out


def _key_prefix(path: KeyPath) -> KeyPath:
    """The mapping keys of ``path`` above its first list index (the key a variant file must set)."""
    for i, part in enumerate(path):
        if isinstance(part, int):
            return path[:i]
    return path


def _nest(keys: KeyPath, value: Any) -> dict:
    for key in reversed(keys):
        value = {key: value}
    return value


def overlay(base: dict, changes: dict[str, Any]) -> dict:
    """The keys a variant file must set so that ``extends:``-merging them over ``base`` gives
    ``base`` with every path of ``changes`` (``{path: value}``) set: the deepest mapping key of
    each path, holding the whole changed value (a whole list when the path runs through one).
    Raises PathError for a path that does not exist."""
    data = base
    parsed = {text: parse_path(text) for text in changes}
    for text, path in parsed.items():
        get_path(data, path)
        data = set_path(data, path, changes[text])
    out: dict = {}
    for path in parsed.values():
        keys = _key_prefix(path)
        resolved = tuple(_resolve_keys(base, keys))
        out = deep_merge(out, _nest(resolved, copy.deepcopy(get_path(data, resolved))))
    return out


def _resolve_keys(data: dict, keys: KeyPath) -> list[Any]:
    """The actual mapping keys (str or int, as in the YAML) of a key-only path."""
    out, current = [], data
    for part in keys:
        key = _key_in(current, part)
        out.append(key)
        current = current[key]
    return out


def apply_changes(base: dict, changes: dict[str, Any]) -> dict:
    """``base`` (a resolved config mapping) merged with :func:`overlay`, as ``extends:`` would."""
    return deep_merge(base, overlay(base, changes))


def validate_point(resolved: ResolvedYaml, model: type[BaseModel], changes: dict[str, Any], variant: str) -> BaseModel:
    """The config of the base ``resolved`` with ``changes`` applied and named ``variant``, validated by
    the game's ``model``. Raises PathError for a path that does not exist and ValueError (one line
    per problem: key path and what the model refuses) for a value the model refuses."""
    data = apply_changes(resolved.data, changes)
    data["variant"] = variant
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        point = ResolvedYaml(path=resolved.path, data=data, origins={}, chain=[resolved.path])
        lines = [line.split(": ", 1)[1] if ": " in line else line for line in validation_error_lines(point, model, exc)]
        raise ValueError("; ".join(lines)) from None


def value_text(value: Any) -> str:
    """A value as a designer writes it: ``3``, ``0.5``, ``true``, ``[2, 2, 1, 0]``, ``null``."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:.1f}"
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def changes_text(changes: dict[str, Any]) -> str:
    """``'seat_bonus.4[0]=3, seat_bonus.4[1]=2'``: a point's values for lines and tables."""
    return ", ".join(f"{p}={value_text(v)}" for p, v in changes.items())


def point_label(values: list[Any]) -> str:
    """A file-name-safe label of a point's values (``[3, 2]`` -> ``3_2``): letters, digits, ``.``,
    ``-`` and ``_`` only; values whose text loses characters (or a label over 48 characters) get a
    short hash of their JSON so that two points never share a label."""
    pieces = [re.sub(r"[^A-Za-z0-9.-]+", "~", value_text(v)).strip("~") or "x" for v in values]
    label = "_".join(pieces)
    exact = all(p == value_text(v) for p, v in zip(pieces, values))
    if not exact or len(label) > 48 or not re.match(r"^[A-Za-z0-9]", label):
        digest = hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:8]
        label = f"{label[:32].strip('~._-') or 'v'}~{digest}"
        label = re.sub(r"[^A-Za-z0-9._-]", "-", label)
        if not re.match(r"^[A-Za-z0-9]", label):
            label = "v" + label
    return label


def relative_extends(variant_file: Path, base: Path) -> str:
    """The ``extends:`` value of ``variant_file`` naming ``base``: a shipped base by its shipped name
    (``citywright/v1.1``, wherever balancer is installed), unless a file of that name lies beside
    ``variant_file`` (it would win over the shipped one); else a relative path when both lie on one
    drive and share a folder below the root (``../mine/base.yaml``), else the absolute path (a path
    from ``/srv/out`` to ``/opt/mine`` would climb to the root: it breaks when either moves)."""
    from balancer.data import shipped_name

    shipped = shipped_name(base)
    folder = Path(variant_file).resolve().parent
    if shipped is not None and not (folder / shipped).exists() and not (folder / f"{shipped}.yaml").exists():
        return shipped
    target = Path(base).resolve()
    try:
        shared = Path(os.path.commonpath([target, folder]))
    except ValueError:  # another drive
        return str(target)
    if shared == Path(shared.anchor):
        return str(target)
    return Path(os.path.relpath(target, folder)).as_posix()


def variant_yaml(
    variant_file: Path,
    base_file: Path,
    base_data: dict,
    changes: dict[str, Any],
    variant: str | None,
    comment: list[str] | None = None,
) -> str:
    """The text of a variant file that ``extends:`` ``base_file`` and sets only what ``changes``
    changes (:func:`overlay`), named ``variant`` (None: no ``variant:`` key, so the file is named
    after itself), preceded by ``comment`` lines (each written as ``# line``)."""
    head = "".join(f"# {line}\n" if line else "#\n" for line in (comment or []))
    doc: dict[str, Any] = {"extends": relative_extends(variant_file, base_file)}
    if variant is not None:
        doc["variant"] = variant
    doc.update(overlay(base_data, changes))
    body = yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)
    return head + body


def inclusive_range(start: float, stop: float, step: float) -> list[float | int]:
    """``start, start + step, ...`` up to ``stop`` included (within a rounding error), as ints when
    all three are ints. Raises ValueError for a step that is not positive, an end that is not finite
    (``.inf``, ``.nan``), or more than 10,000 values."""
    if not step > 0 or not math.isfinite(step):
        raise ValueError(f"step must be above 0, got {step}")
    for name, bound in (("from", start), ("to", stop)):
        if not math.isfinite(bound):
            raise ValueError(f"{name} must be a finite number, got {bound}")
    span = (stop - start) / step + 1e-9  # infinite when from and to are finite but far apart (-1e308 to 1e308)
    if span >= 10_000:
        shown = f"{math.floor(span) + 1:,}" if math.isfinite(span) else "too many"
        raise ValueError(f"from {start} to {stop} by {step} is {shown} values; at most 10,000")
    count = math.floor(span) + 1
    if all(isinstance(x, int) and not isinstance(x, bool) for x in (start, stop, step)):
        return [int(start + i * step) for i in range(max(count, 0))]
    return [round(start + i * step, 10) for i in range(max(count, 0))]
