"""Importing another package's game or generic agent so that it cannot take a command down (issue 52).

A plugin is a ``balancer.games`` or ``balancer.agents`` entry point whose import path is not
balancer's own (``balancer.…``): its import runs another package's code, which may raise
``SystemExit`` or ``KeyboardInterrupt``, call ``os._exit``, sleep, or print. Two fences:

* :func:`probe` imports it first in a child process (its output discarded), waiting at most
  :func:`import_seconds` (default 30, the environment variable ``BALANCER_PLUGIN_IMPORT_SECONDS``):
  a plugin that raises anything, ends the process or takes longer is not imported here and its
  problem is said (``import took more than 30 s``, ``ended the process at import (exit status 0)``).
  What passed is remembered for this process and its children (the environment variable
  ``BALANCER_PLUGINS_PROBED``: a loky worker does not probe again). The cost, measured for an agent
  module that imports ``balancer.core.generic_agents``: 0.27 CPU s of the child, 1.1 s of wall time
  on a loaded 2-core machine (load 8), per plugin probed (the other packages' games are tried at
  once, as are their agents), paid once per command and only when such a plugin is installed (none:
  nothing). Balancer's own games and agents are not probed. A game is imported only when a command needs it (``balancer games`` needs
  them all); the generic agents are imported by every command that seats a table.
* :func:`contained` imports it in a thread with standard output and error (the streams and file
  descriptors 1 and 2) sent to the null device, catching ``BaseException``: a ``SystemExit`` or
  ``KeyboardInterrupt`` the plugin raises ends that thread, not the command, while a real Ctrl-C is
  delivered to the main thread, which only waits, and stops the command as usual (exit 130).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

IMPORT_SECONDS = 30.0
"""The longest a plugin's import may take in :func:`probe` (seconds), unless
``BALANCER_PLUGIN_IMPORT_SECONDS`` says otherwise: long enough for a compiled game's first import."""

PROBED_ENV = "BALANCER_PLUGINS_PROBED"
"""The environment variable listing (JSON) the import paths that passed :func:`probe` in this
process or a parent (a worker process inherits it and does not probe them again)."""

_FAILED: dict[str, str] = {}
"""Import path -> why it failed :func:`probe` in this process."""


class PluginImportError(ImportError):
    """A plugin that failed to import: the message says how (``SystemExit: 3``, ``import took more
    than 30 s``)."""


def is_outside(path: str) -> bool:
    """Whether the import path of an entry point (``pkg.mod`` or ``pkg.mod:OBJECT``) is another
    package's, not balancer's own."""
    return path.split(":", 1)[0].split(".", 1)[0] != "balancer"


def import_seconds() -> float:
    """:data:`IMPORT_SECONDS`, or the positive number in ``BALANCER_PLUGIN_IMPORT_SECONDS``."""
    try:
        seconds = float(os.environ.get("BALANCER_PLUGIN_IMPORT_SECONDS", IMPORT_SECONDS))
    except ValueError:
        return IMPORT_SECONDS
    return seconds if 0 < seconds < float("inf") else IMPORT_SECONDS


def _probed() -> set[str]:
    try:
        found = json.loads(os.environ.get(PROBED_ENV, "[]"))
    except ValueError:
        return set()
    return {str(x) for x in found} if isinstance(found, list) else set()


_PROBE = r"""
import importlib, os, sys
verdict = os.fdopen(os.dup(1), "w")
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 0), os.dup2(null, 1), os.dup2(null, 2)
sys.stdout = sys.stderr = open(os.devnull, "w")
module, _, attr = sys.argv[1].partition(":")
try:
    found = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        found = getattr(found, part)
    said = "ok"
except BaseException as exc:
    said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
verdict.write(" ".join(said.split())[:300])
verdict.flush()
os._exit(0)
"""


def _verdict(proc: subprocess.Popen[str], seconds: float) -> str | None:
    """None when the probe ``proc`` imported its plugin, else why not (killing it after ``seconds``)."""
    try:
        said, _ = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return f"import took more than {seconds:g} s"
    if said == "ok":
        return None
    if said:
        return said
    if proc.returncode < 0:
        return f"the process was killed by signal {-proc.returncode} at import"
    return f"ended the process at import (os._exit or a crash, exit status {proc.returncode})"


def probe(paths: Iterable[str]) -> dict[str, str]:
    """Import each of ``paths`` (``pkg.mod`` or ``pkg.mod:OBJECT``) in a child process of its own, all
    at once, each given :func:`import_seconds`; returns path -> problem for those that failed (see the
    module docstring). A path probed before in this process (or a parent) is not probed again, nor one
    whose module this process has imported already (its import ran here: nothing is left to contain)."""
    wanted = list(dict.fromkeys(paths))
    passed = _probed() | {p for p in wanted if p.split(":", 1)[0] in sys.modules}
    todo = [p for p in wanted if p not in passed and p not in _FAILED]
    if todo:
        seconds = import_seconds()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        procs: dict[str, subprocess.Popen[str]] = {}
        try:
            for path in todo:
                procs[path] = subprocess.Popen(
                    [sys.executable, "-c", _PROBE, path],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                    env=env,
                )
            for path, proc in procs.items():
                problem = _verdict(proc, seconds)
                if problem is None:
                    passed.add(path)
                else:
                    _FAILED[path] = problem
        finally:  # an interrupt while waiting: no probe is left behind
            for proc in procs.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        os.environ[PROBED_ENV] = json.dumps(sorted(passed))
    return {p: _FAILED[p] for p in wanted if p in _FAILED}


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Standard output and error, as Python streams and as file descriptors 1 and 2, to the null device."""
    saved: list[tuple[int, int]] = []
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                copy = os.dup(fd)
                saved.append((fd, copy))
                os.dup2(null, fd)
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield
    finally:
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)
        os.close(null)


def contained(load: Callable[[], T]) -> T:
    """``load()`` (a plugin's import) run in a thread with its output discarded; its result, or
    :class:`PluginImportError` saying what it raised, ``SystemExit`` and ``KeyboardInterrupt``
    included. A signal to this process still interrupts the wait (the main thread's handler runs)."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = load()
        except BaseException as exc:  # the plugin's SystemExit or KeyboardInterrupt too: its problem, not the command's
            result["error"] = exc

    with _quiet():
        worker = threading.Thread(target=run, name="balancer-plugin-import", daemon=True)
        worker.start()
        worker.join()
    if "error" in result:
        exc = result["error"]
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise PluginImportError(" ".join(text.split())[:500]) from exc
    return result["value"]  # type: ignore[no-any-return]


def load_plugin(path: str, load: Callable[[], T]) -> T:
    """``load()`` for the entry point at ``path``: balancer's own at once; another package's after
    :func:`probe` and :func:`contained`. :class:`PluginImportError` says why it failed."""
    if not is_outside(path):
        return load()
    problem = probe([path]).get(path)
    if problem is not None:
        raise PluginImportError(problem)
    return contained(load)
