"""The rule variants and studies that ship with balancer (package data).

Every game's YAML files live in the repository's ``configs/<game>/``; ``balancer/data/configs`` is a
link to that folder, which the wheel ships as package data (the build copies the files), so a
checkout and an installed wheel read the same files and there is one copy to edit. A built-in file can be
named without a path as ``<game>/<name>`` (``citywright/v1.1``, ``citywright/v1.1.yaml``): wherever
a command takes a config or study file, and in ``extends:``. A file that exists on disk under the
same name always wins over the built-in one.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"
"""The folder of the shipped configs: one subfolder per game (in a checkout, a link to ``configs/``)."""

_BUILTIN_NAME = re.compile(r"(?P<game>[a-z][a-z0-9_]*)/(?P<name>[A-Za-z0-9_-][A-Za-z0-9._-]*?)(?:\.yaml)?")


def builtin_config(name: str | Path) -> Path | None:
    """The shipped file named ``<game>/<name>`` (``.yaml`` optional), or None when ``name`` is not of
    that form or no such file ships. ``name`` never reaches outside :data:`CONFIGS_DIR` (no ``..``,
    no absolute path, no deeper folder)."""
    match = _BUILTIN_NAME.fullmatch(str(name))
    if match is None or match["name"].startswith("."):
        return None
    path = CONFIGS_DIR / match["game"] / f"{match['name']}.yaml"
    return path if path.is_file() else None


def locate_config(path: str | Path) -> Path:
    """``path`` as given when it exists on disk (or is not a built-in name), else the built-in file it
    names (:func:`builtin_config`). Never raises: a missing file is reported by whoever reads it."""
    given = Path(path)
    try:
        if given.exists():
            return given
    except OSError:  # a name too long for the file system: the reader says so
        return given
    return builtin_config(path) or given


def missing_note(name: str | Path) -> str:
    """What to add to "file not found" for ``name``: for a ``<game>/<name>`` that no file on disk and
    no shipped file answers to, the shipped names closest to it and where to list them all; else ""."""
    match = _BUILTIN_NAME.fullmatch(str(name))
    if match is None or str(name).endswith(".yaml") and Path(name).parent.exists():
        return ""
    game = match["game"]
    shipped = [builtin_name(p) for p in builtin_configs(game)]
    if not shipped:
        return " (not a file, nor a built-in name: `balancer games` lists the games and their files)"
    close = difflib.get_close_matches(f"{game}/{match['name']}", shipped, n=3, cutoff=0.6)
    hint = f"; closest: {', '.join(close)}" if close else ""
    return f" (not a file, nor a built-in name{hint}; `balancer games` lists {game}'s files)"


def builtin_configs(game: str) -> list[Path]:
    """The shipped YAML files of ``game`` (variants, fragments and studies), sorted by name; [] for a
    game that ships none."""
    return sorted((CONFIGS_DIR / game).glob("*.yaml"))


def builtin_name(path: Path) -> str:
    """``<game>/<stem>`` of a shipped file (``citywright/v1.1``), the name that finds it again."""
    return f"{path.parent.name}/{path.stem}"


def shipped_name(path: Path | str) -> str | None:
    """``<game>/<stem>`` (``citywright/v1.1``) when ``path`` is a shipped file (wherever it is
    installed: a checkout's ``configs/`` or a site-packages folder), else None. Never raises."""
    try:
        resolved = Path(path).resolve()
        root = CONFIGS_DIR.resolve()
    except (OSError, RuntimeError):
        return None
    if resolved.parent.parent != root or resolved.suffix != ".yaml":
        return None
    name = builtin_name(resolved)
    return name if builtin_config(name) is not None else None


def portable_path(path: Path | str, relative_to: Path | str) -> str:
    """How a published file names ``path``: its shipped name (``citywright/v1.1``) for a shipped file,
    else a POSIX path relative to the folder ``relative_to`` (the absolute path when the two lie on
    different drives), never a machine-local site-packages path."""
    import os

    shipped = shipped_name(path)
    if shipped is not None:
        return shipped
    try:
        return Path(os.path.relpath(Path(path).resolve(), Path(relative_to).resolve())).as_posix()
    except ValueError:
        return str(Path(path).resolve())
