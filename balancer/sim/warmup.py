"""What a run's first chunk waits for (numba compiling or loading a game's kernels, the MCTS search
compiled once on a machine, then loaded in every worker) and how long that took the last time on this machine.

The durations live in one small JSON file in the user's cache directory (``$BALANCER_CACHE_DIR``,
else ``$XDG_CACHE_HOME/balancer``, else ``~/.cache/balancer``): never in a run's output folder. A
file that cannot be read or written is ignored: the note then says what is typical. The file is not
trusted (issue 52, item 5): it is read only when it is a regular file (a link, a FIFO or a device is
never opened: :func:`balancer.limits.read_regular_bounded`) of at most
:data:`~balancer.limits.MAX_CACHE_BYTES`, nested at most :data:`~balancer.limits.MAX_CACHE_DEPTH`
levels; a bad file is ignored, said once in the warm-up note (:func:`cache_problem`), and replaced by
the next duration recorded (a new file renamed over it, never written through it).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from balancer.core.registry import GameSpec
from balancer.limits import MAX_CACHE_BYTES, MAX_CACHE_DEPTH, loads_json_bounded, read_regular_bounded

WARMUP_FILE = "warmup-seconds.json"
"""The file of last warm-up durations (seconds by :attr:`Warmup.key`) in :func:`cache_dir`."""

TYPICAL = {
    "compile": "typically 1 to 4 min",  # README: about a minute; issue 31: Citywright 3 min 38 s; Urgency 3 min 11 s
    "load": "typically 2 s to 20 s",
    "mcts": "typically 30 s to 3 min",  # issue 31: 32 s; Urgency's on 2 busy cores (1 Dec 2026): 2 min 25 s
    "mcts-cached": "typically 1 s to 10 s",
}
"""What a first warm-up on a machine takes, by kind, when nothing was recorded yet."""

LOAD_LIMIT = {"load": 20.0, "mcts-cached": 10.0}
"""Seconds past which a load from numba's cache is taken for a compile (the top of :data:`TYPICAL`'s
load ranges): numba found its index but compiles anyway (a source newer than the index, another
signature), which the index files alone do not tell."""

_WARMED: set[str] = set()
"""What this process's workers hold: games (``citywright``) whose engine they loaded, and
``citywright+mcts`` when they compiled its MCTS search."""


@dataclass(frozen=True)
class Warmup:
    """What the first chunk of a run of ``game`` waits for: ``kind`` ``compile`` (the engine is not in
    numba's cache), ``load`` (it is: loaded from the cache) or ``none`` (no compiled engine, or one
    this process's workers hold already), and ``mcts`` when an MCTS seat's search is to be compiled
    (once on a machine) or, ``mcts_cached``, loaded from numba's cache (in every worker process)."""

    game: str
    kind: str
    mcts: bool
    mcts_cached: bool = False

    @property
    def key(self) -> str:
        """The name its duration is recorded under (``citywright/compile+mcts``; ``citywright/`` when
        nothing is compiled or loaded)."""
        parts = [self.kind] if self.kind in ("compile", "load") else []
        search = ["mcts-cached" if self.mcts_cached else "mcts"] if self.mcts else []
        return f"{self.game}/" + "+".join(parts + search)

    def what(self) -> str:
        """What is happening, in words (``compiling the citywright engine``); empty when nothing is
        compiled or loaded."""
        parts = []
        if self.kind == "load" and self.mcts and self.mcts_cached:
            return f"loading the {self.game} engine and its MCTS search from numba's cache"
        if self.kind == "compile":
            parts.append(f"compiling the {self.game} engine")
        elif self.kind == "load":
            parts.append(f"loading the {self.game} engine from numba's cache")
        if self.mcts and self.mcts_cached:
            parts.append(f"loading the MCTS search for {self.game} from numba's cache")
        elif self.mcts:
            parts.append(f"compiling the MCTS search for {self.game} (once on this machine)")
        return " and ".join(parts)

    def typical(self) -> str:
        """What a first time typically takes (:data:`TYPICAL`): the longest of its parts."""
        if self.kind == "compile":
            return TYPICAL["compile"]
        if self.mcts:
            return TYPICAL["mcts-cached" if self.mcts_cached else "mcts"]
        return TYPICAL["load"]


def warmup_of(spec: GameSpec, agents: Sequence[str]) -> Warmup:
    """The :class:`Warmup` of a run of ``agents`` at ``spec``'s game: judged from numba's cache now,
    less what this process's workers hold already (:func:`mark_warm`)."""
    from balancer.agents.mcts import is_cached
    from balancer.agents.params import is_mcts_name
    from balancer.core.numba_cache import cache_is_cold

    # the search's compile is mcts's: another generic agent's seat waits for nothing of it
    seated = "mcts" in spec.generic_agents and any(is_mcts_name(str(a)) for a in agents)
    mcts = seated and f"{spec.name}+mcts" not in _WARMED
    kernel = getattr(spec.engine, "kernel", None)
    mcts_cached = mcts and kernel is not None and is_cached(kernel, getattr(spec, "game_agent", None))
    if spec.engine is None or spec.name in _WARMED:
        kind = "none"
    else:
        kind = "compile" if cache_is_cold(spec.source / "__init__.py") else "load"
    return Warmup(spec.name, kind, mcts, mcts_cached)


def is_warm(warmup: Warmup) -> bool:
    """Whether nothing is compiled or loaded before the first chunk (the workers hold it already)."""
    return not warmup.what()


def mark_warm(warmup: Warmup) -> None:
    """Remember that this process's workers hold what ``warmup`` compiles or loads: loky keeps its
    workers between the runs of one process, so a study's later cells start warm."""
    _WARMED.add(warmup.game)
    if warmup.mcts:
        _WARMED.add(f"{warmup.game}+mcts")


def cache_dir() -> Path:
    """The user's cache directory of balancer (``$BALANCER_CACHE_DIR``, ``$XDG_CACHE_HOME/balancer``
    or ``~/.cache/balancer``)."""
    own = os.environ.get("BALANCER_CACHE_DIR")
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "balancer"


_PROBLEMS: dict[str, str] = {}
"""The cache files found bad in this process -> why (read once, said once: :func:`cache_problem`)."""
_SAID: set[str] = set()


def cache_problem(folder: Path | None = None) -> str:
    """A clause about the cache file of ``folder`` (the cache folder) when this process found it bad
    (``; the cache file X was ignored (why) and is written again``), said once per file; else ``""``."""
    path = str((folder or cache_dir()) / WARMUP_FILE)
    why = _PROBLEMS.get(path)
    if why is None or path in _SAID:
        return ""
    _SAID.add(path)
    return f"; the cache file {path} was ignored ({why}) and is written again"


def read_durations(folder: Path | None = None) -> dict[str, float]:
    """The recorded warm-up seconds by key; empty when the file is missing, unreadable or not what
    it should be (entries that are not non-negative numbers are dropped). A file there that is not a
    regular file, too large, too deep or not a JSON object is never opened or parsed past its bounds,
    and remembered for :func:`cache_problem`."""
    path = (folder or cache_dir()) / WARMUP_FILE
    try:
        raw = read_regular_bounded(path, MAX_CACHE_BYTES, "a cache file")
        data = loads_json_bounded(raw.decode("utf-8"), path, MAX_CACHE_DEPTH)
    except UnicodeDecodeError:
        _PROBLEMS.setdefault(str(path), "not UTF-8 text")
        return {}
    except ValueError as exc:  # InputLimitError (names the file), JSONDecodeError
        _PROBLEMS.setdefault(str(path), str(exc).removeprefix(f"{path}: "))
        return {}
    except OSError:  # missing, unreadable, under a file: nothing recorded, nothing to say
        return {}
    if not isinstance(data, dict):
        _PROBLEMS.setdefault(str(path), "not a JSON object")
        return {}
    return {
        str(k): float(v)
        for k, v in data.items()
        if isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < 1e7
    }


def last_duration(warmup: Warmup, folder: Path | None = None) -> float | None:
    """Seconds ``warmup`` took the last time it was recorded on this machine, or None."""
    return read_durations(folder).get(warmup.key)


def record_duration(warmup: Warmup, seconds: float, folder: Path | None = None) -> None:
    """Record ``seconds`` as the last duration of ``warmup``; silent when it cannot be written."""
    folder = folder or cache_dir()
    try:
        data = read_durations(folder)
        data[warmup.key] = round(max(0.0, float(seconds)), 1)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{WARMUP_FILE}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
            os.replace(tmp, folder / WARMUP_FILE)  # over a bad file (a link, a FIFO): renamed over, never opened
        finally:
            tmp.unlink(missing_ok=True)
    except (OSError, ValueError):
        pass


def duration_text(seconds: float) -> str:
    """``42 s``, ``3 min 38 s``, ``1 h 05 min`` (rounded to whole seconds)."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def last_time_text(warmup: Warmup, folder: Path | None = None) -> str:
    """``took 3 min 38 s last time on this machine``, or ``first time on this machine: typically 1 to
    4 min`` when nothing was recorded."""
    last = last_duration(warmup, folder)
    if last is not None:
        return f"took {duration_text(last)} last time on this machine"
    return f"first time on this machine: {warmup.typical()}{cache_problem(folder)}"


def as_compiled(warmup: Warmup) -> Warmup:
    """``warmup`` as it is when numba's cache does not hold what it loads: what it loads, compiled."""
    return Warmup(warmup.game, "compile" if warmup.kind == "load" else warmup.kind, warmup.mcts, False)


def compile_after(warmup: Warmup, folder: Path | None = None) -> tuple[float, str] | None:
    """``(seconds, words)`` for a warm-up that loads from numba's cache: past ``seconds`` (three times
    its last recorded load, at least :data:`LOAD_LIMIT` of its kind) it is compiling, which ``words``
    say (``compiling the citywright engine and the MCTS search for citywright``); None when it loads
    nothing (it compiles, or waits for nothing)."""
    kinds = [k for k, on in (("load", warmup.kind == "load"), ("mcts-cached", warmup.mcts_cached)) if on]
    if not kinds:
        return None
    last = last_duration(warmup, folder)
    limit = max(max(LOAD_LIMIT[k] for k in kinds), 3 * last if last is not None else 0.0)
    what = as_compiled(warmup).what().replace(" (once on this machine)", "").replace(" and compiling the ", " and the ")
    return limit, what


def turned_out(warmup: Warmup, seconds: float, folder: Path | None = None) -> Warmup:
    """What ``warmup`` turned out to be after ``seconds``: compiled when it loaded past its limit
    (:func:`compile_after`), so that a compile is recorded as a compile, never as next time's load."""
    late = compile_after(warmup, folder)
    return as_compiled(warmup) if late is not None and seconds > late[0] else warmup


def warmup_note(warmup: Warmup, folder: Path | None = None) -> tuple[str, str]:
    """What is compiling or loading and how long it took last time (:func:`last_time_text`):
    ``("compiling the citywright engine", "took 3 min 38 s last time on this machine")``; two empty
    strings when nothing is."""
    what = warmup.what()
    return (what, last_time_text(warmup, folder)) if what else ("", "")
