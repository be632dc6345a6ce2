"""Limits on input: every file a command is given is read through here, bounded in size, line length and
nesting depth, so that no input can make a command crash with a traceback, hang or grow without bound
(issue 28: 500 levels of YAML in 10 kB raised RecursionError; ``balancer score CONFIG /dev/zero`` grew to
gigabytes).

The functions raise :class:`InputLimitError` (a ValueError whose text starts with the file's path); each
reader wraps it in its own error type (ConfigError, BaselineError, ...) where it has one.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
"""The deepest nesting of mappings and lists read from YAML or JSON. The shipped configs nest at most 6
levels, a baseline 5; Python's recursion limit (1,000 frames) is far above this, so nothing recursive
that handles the data afterwards (merging, validation, writing) can overflow."""

MAX_JSON_BYTES = 64_000_000
"""The largest JSON file read (bytes): run.json, summary.json, manifest.json, a baseline, a comparison.
The files a run writes are kilobytes; a run.json listing many failed games stays far below this."""

MAX_TEXT_BYTES = 1_000_000
"""The largest plain text file read (bytes): a table drawn for ``balancer score``."""

MAX_LINE_CHARS = 10_000
"""The longest line of a plain text file (characters)."""

MAX_GRID_POINTS = 10_000
"""The most points of a sweep: the product of its paths' value counts (as a tune bounds its domains)."""


class InputLimitError(ValueError):
    """A file larger, longer-lined or more deeply nested than a command reads; ``str()`` names the file."""


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of ``path``, reading at most ``limit + 1`` of them, so that a device or a pipe without end
    (``/dev/zero``) is refused after ``limit`` bytes rather than read forever, and a named pipe nobody
    writes to reads as empty rather than waiting forever for a writer.

    Raises InputLimitError naming ``path`` when it holds more than ``limit`` bytes (``what``: "a config
    file"); OSError when it cannot be opened or read."""
    # O_NONBLOCK: opening a named pipe (FIFO) with no writer returns at once instead of waiting for one
    # forever; reads then block again, and a pipe without a writer reads as empty (EOF).
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as f:
        os.set_blocking(fd, True)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise InputLimitError(f"{path}: more than the {limit:,} bytes {what} may have")
    return data


MAX_CACHE_BYTES = 100_000
"""The largest file read from balancer's cache folder (``warmup-seconds.json``: a few hundred bytes)."""

MAX_CACHE_DEPTH = 2
"""The deepest nesting of a JSON file in balancer's cache folder (a flat object of numbers: 1)."""


def read_regular_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes: ``lstat`` first, so that
    a symbolic link (to ``/dev/zero`` or anything else), a FIFO, a device or a socket is refused without
    being opened; then opened with O_NOFOLLOW and O_NONBLOCK (a link or a FIFO planted in between is not
    followed nor waited on) and checked again with ``fstat``; at most ``limit + 1`` bytes are read.

    Raises InputLimitError naming ``path`` (not a regular file, too large), OSError (missing, unreadable).
    For files a command does not take from its user: balancer's cache (issue 52, item 5)."""
    import stat

    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise InputLimitError(f"{path}: {kind}; not opened")
    if st.st_size > limit:
        raise InputLimitError(f"{path}: more than the {limit:,} bytes {what} may have")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    with open(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputLimitError(f"{path}: not a regular file; not read")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise InputLimitError(f"{path}: more than the {limit:,} bytes {what} may have")
    return data


def read_text_bounded(path: Path, limit: int, what: str, line_limit: int | None = None) -> str:
    """:func:`read_bounded` decoded as UTF-8; with ``line_limit``, a line longer than that many characters
    is refused too. Raises InputLimitError (too large, a line too long, not UTF-8 text), OSError."""
    data = read_bounded(path, limit, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputLimitError(f"{path}: not UTF-8 text") from None
    if line_limit is not None:
        for number, line in enumerate(text.splitlines(), 1):
            if len(line) > line_limit:
                raise InputLimitError(f"{path}:{number}: a line of {len(line):,} characters; at most {line_limit:,}")
    return text


def nesting_depth(data: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply mappings and lists nest in ``data`` (a scalar: 0, ``[1]``: 1), counting at most to
    ``limit + 1``; iterative, so that it cannot overflow Python's stack itself."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list | tuple):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def check_depth(data: Any, path: Path | str, limit: int = MAX_DEPTH) -> None:
    """Raise InputLimitError naming ``path`` when ``data`` nests deeper than ``limit`` levels."""
    if nesting_depth(data, limit) > limit:
        raise InputLimitError(f"{path}: nested more than {limit} levels deep")


def loads_json_bounded(text: str | bytes, path: Path | str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads(text)`` refusing nesting deeper than ``limit`` (InputLimitError naming ``path``); a
    JSON syntax error propagates as json.JSONDecodeError (a ValueError)."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputLimitError(f"{path}: nested more than {limit} levels deep") from None
    check_depth(data, path, limit)
    return data


def read_json_bounded(path: Path, what: str = "a JSON file") -> Any:
    """The JSON document of ``path``: at most :data:`MAX_JSON_BYTES`, nested at most :data:`MAX_DEPTH`.
    Raises InputLimitError (too large, too deep, not UTF-8), json.JSONDecodeError, OSError."""
    data = read_bounded(path, MAX_JSON_BYTES, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputLimitError(f"{path}: not UTF-8 text") from None
    return loads_json_bounded(text, path)


def grid_size(counts: list[int]) -> int:
    """The product of ``counts`` (the values of each sweep path): the points of their grid."""
    return math.prod(counts)
