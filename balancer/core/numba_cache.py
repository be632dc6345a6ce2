"""Keeping numba's on-disk cache honest.

numba's ``cache=True`` keys each compiled function by its own source file. A compiled function that
calls (and inlines) functions of *another* module of the package keeps running the old code after
that module changes, until its own file changes too. A game package calls :func:`drop_stale_cache`
first thing in its ``__init__``: when the package's sources (with the core sources its compiled
code takes in, :data:`SHARED_SOURCES`) differ from those its cache was built from, the cache files
are deleted and numba compiles afresh. The core table loop's cache
(:mod:`balancer.core.table_loop`, which holds every game's table inlined) goes with them.

Where numba keeps a module's cache: beside it in ``__pycache__``, or, when ``NUMBA_CACHE_DIR`` is
set (as docs/ci-own-game.md advises, to keep the cache between CI runs), in a folder of that
directory named after the module's folder (:func:`cache_folder`). Both are kept honest.
"""

from __future__ import annotations

import hashlib
import os
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def cache_folder(source_dir: Path) -> Path:
    """The folder where numba caches the compiled functions of the modules in ``source_dir``: its
    ``__pycache__``, or with ``NUMBA_CACHE_DIR`` set, numba's own folder for it there
    (``<dir name>_<SHA-1 of the dir's absolute path>``, as ``numba.core.caching``'s
    ``UserProvidedCacheLocator`` names it; read from the environment, as numba reads it, so that
    nothing here imports numba)."""
    user = os.environ.get("NUMBA_CACHE_DIR", "")
    if not user:
        return source_dir / "__pycache__"
    folder = os.path.dirname(os.path.abspath(source_dir / "__init__.py"))
    return Path(user) / "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])


SHARED_CACHES: tuple[tuple[Path, str], ...] = ((Path(__file__).resolve().parent, "table_loop.*"),)
"""(source folder, file-name pattern) of compiled functions outside a game that inline its code:
their cache files (in :func:`cache_folder` of the folder) are dropped with the game's own cache."""

SHARED_SOURCES: tuple[Path, ...] = (Path(__file__).resolve().parent / "fixed_draws.py",)
"""Sources outside a game whose compiled code a game's cached functions take in (the
:class:`~balancer.core.fixed_draws.FixedDraws` of its move scores): part of every game's digest, so a
change to them drops the games' caches too."""

STAMP = "numba-sources.sha256"
"""File in the package's ``__pycache__`` holding the digest of the sources the cache was built from."""


def sources_digest(root: Path, shared: tuple[Path, ...] = ()) -> str:
    """SHA-256 of every ``.py`` file directly in ``root`` (names and contents, sorted by name), then
    of the files ``shared`` (in their order)."""
    digest = hashlib.sha256()
    for path in [*sorted(root.glob("*.py")), *shared]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def drop_stale_cache(package_file: str | os.PathLike[str]) -> bool:
    """Delete the numba cache files (``*.nbi``, ``*.nbc`` in :func:`cache_folder`: ``__pycache__``
    or under ``NUMBA_CACHE_DIR``) of the package whose ``__init__.py`` is ``package_file`` if its
    sources (or :data:`SHARED_SOURCES`) changed since the cache was built.

    Returns True when files were deleted. Never raises for file-system problems (a read-only
    install simply keeps numba's own behaviour).
    """
    root = Path(package_file).resolve().parent
    cache = cache_folder(root)
    digest = sources_digest(root, SHARED_SOURCES)
    stamp = cache / STAMP
    try:
        if stamp.read_text(encoding="ascii").strip() == digest:
            return False
    except OSError:
        pass
    dropped = False
    try:
        shared = [
            p
            for folder, pattern in SHARED_CACHES
            for p in cache_folder(folder).glob(pattern)
            if p.suffix in (".nbi", ".nbc")
        ]
        for path in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")) + shared:
            path.unlink(missing_ok=True)
            dropped = True
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f"{STAMP}.{os.getpid()}.tmp"
        tmp.write_text(digest + "\n", encoding="ascii")
        os.replace(tmp, stamp)
    except OSError:
        pass
    return dropped


def cache_is_cold(package_file: str | os.PathLike[str]) -> bool:
    """Whether the package whose ``__init__.py`` is ``package_file`` has no compiled functions in
    numba's on-disk cache yet (no ``*.nbi`` index in :func:`cache_folder`: ``__pycache__``, or under
    ``NUMBA_CACHE_DIR``): its first game will compile the engine first, which takes seconds to
    minutes depending on the game."""
    cache = cache_folder(Path(package_file).resolve().parent)
    try:
        return not any(cache.glob("*.nbi"))
    except OSError:
        return False


def renamed_copy(template: Callable[..., Any], name: str, globals_: Mapping[str, Any] | None = None) -> Any:
    """A copy of the Python function ``template`` named ``name`` (its ``__name__`` and
    ``__qualname__``), with ``globals_`` over its globals: numba names a cache file by the function's
    qualified name, so each copy compiled with ``cache=True`` gets a file (and an index) of its own,
    and a global such as a module of compiled functions is a compile-time constant of that copy."""
    fn = types.FunctionType(template.__code__, {**template.__globals__, **(globals_ or {})}, name)
    fn.__qualname__ = name
    fn.__doc__ = template.__doc__
    fn.__defaults__ = template.__defaults__
    return fn
