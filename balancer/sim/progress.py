"""The progress of a run on stderr, shared by :func:`balancer.sim.play.run_games` and
:func:`balancer.sim.runner.run_to_dir`, and the count across the cells of a study, ladder or tune.

On a terminal it is a rich bar; otherwise (CI, ``make report | tee log``) plain lines without escape
codes: one at the start, one at each 10% step of the games when ``$BALANCER_PROGRESS_INTERVAL``
seconds (default 30) have passed since the last line (whichever is rarer; while warming up, one each
interval), and one at the end.
Before the first chunks finish it says what is warming up (:mod:`balancer.sim.warmup`); the rate
and the time left count only the games finished after that warm-up (:class:`RunClock`), so a
compiling engine does not read as "1 game/s" nor a burst of workers finishing together as
"1 s left". Progress is only shown: it never changes what is played.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

from .warmup import duration_text

if TYPE_CHECKING:
    from rich.progress import Progress, Task
    from rich.text import Text

INTERVAL_ENV = "BALANCER_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 30.0
"""Seconds at least between two plain progress lines when stderr is not a terminal (a line also waits
for the next 10% step of the games: a long run's CI log gets about ten lines, not one every 5 s)."""
STEPS = 10
"""A plain line is printed at most once per 1/STEPS of a run's games."""


def progress_interval() -> float:
    """Seconds between plain progress lines: ``$BALANCER_PROGRESS_INTERVAL`` when it is a number >= 0,
    else :data:`DEFAULT_INTERVAL`."""
    try:
        value = float(os.environ.get(INTERVAL_ENV, ""))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if 0 <= value < 1e6 else DEFAULT_INTERVAL


# --------------------------------------------------------------------------------------------------
# the arithmetic (pure)


def eta_seconds(total: int, done: int, games_after: int, seconds_after: float) -> float | None:
    """Seconds left for the ``total - done`` games still to play at the pace of the ``games_after``
    games finished in the ``seconds_after`` seconds since warm-up; None before any was."""
    if games_after <= 0 or seconds_after <= 0:
        return None
    return max(0, total - done) * seconds_after / games_after


def rate_of(games_after: int, seconds_after: float) -> float | None:
    """Games per second after warm-up, or None before a game finished after it."""
    return games_after / seconds_after if games_after > 0 and seconds_after > 0 else None


def clock_text(seconds: float) -> str:
    """Elapsed time as a clock: ``0:42``, ``3:05``, ``1:02:03``."""
    s = max(0, int(seconds))
    hours, rest = divmod(s, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def pace_text(rate: float) -> str:
    """``410 games/s``, ``2.5 games/s``, ``0.42 games/s``: never ``0 games/s`` for a slow table."""
    digits = ",.0f" if rate >= 10 else ".1f" if rate >= 1 else ".2g"
    return f"{format(rate, digits)} games/s"


def count_text(done: int, total: int) -> str:
    """``1,200/10,000 games (12%)``."""
    pct = 100 * done // total if total else 100
    return f"{done:,}/{total:,} games ({pct}%)"


def left_text(seconds: float | None) -> str:
    """``about 21 s left`` (``less than a second left``; ``estimating the time left`` while None)."""
    if seconds is None:
        return "estimating the time left"
    return "less than a second left" if seconds < 0.5 else f"about {duration_text(seconds)} left"


@dataclass
class RunClock:
    """The pace of one run's session: ``total`` games, ``done`` finished before (a resume), warm-up
    over once its first ``warm_chunks`` chunks are done (one per worker: each compiles or loads the
    engine before its first chunk; 0 when the workers are warm already). Times are passed in, so
    that it can be tested on known numbers."""

    total: int
    done: int
    warm_chunks: int
    started: float
    warm_at: float | None = None  # when warm-up ended
    first_at: float | None = None  # when the first chunk finished
    last_at: float | None = None  # when the last chunk finished
    warm_games: int = 0  # games finished during warm-up
    games_after: int = 0  # games finished after it

    def __post_init__(self) -> None:
        if self.warm_chunks <= 0:
            self.warm_at = self.started

    @property
    def warming(self) -> bool:
        return self.warm_at is None

    def chunk(self, games: int, now: float) -> None:
        """A chunk of ``games`` games finished at ``now``."""
        self.done += games
        if self.first_at is None:
            self.first_at = now
        if self.warm_at is None:
            self.warm_games += games
            self.warm_chunks -= 1
            if self.warm_chunks <= 0:
                self.warm_at = now
        else:
            self.games_after += games
        self.last_at = now

    def seconds_after(self) -> float:
        """Seconds from the end of warm-up to the last chunk."""
        if self.warm_at is None or self.last_at is None:
            return 0.0
        return max(0.0, self.last_at - self.warm_at)

    def rate(self) -> float | None:
        return rate_of(self.games_after, self.seconds_after())

    def eta(self, now: float) -> float | None:
        """Seconds left at ``now``: the estimate at the last chunk, counting down since."""
        eta = eta_seconds(self.total, self.done, self.games_after, self.seconds_after())
        if eta is None or self.last_at is None:
            return None
        return max(0.0, eta - (now - self.last_at))

    def warmup_seconds(self) -> float | None:
        """How long warm-up took, play excluded: the time to the end of warm-up less what its games
        would take at the pace after it (the time to the first chunk when there is no pace yet);
        None before a chunk finished."""
        if self.first_at is None:
            return None
        rate = self.rate()
        if rate is None or self.warm_at is None:
            return self.first_at - self.started
        return max(0.0, self.warm_at - self.started - self.warm_games / rate)


@dataclass
class Overall:
    """The count across the cells a study, ladder or tune plays: ``cells`` cells of ``games`` games
    in all; the pace of the cells finished is kept (:meth:`end_cell`) so that the time left counts
    only play after warm-up, as a run's does."""

    what: str
    cells: int
    games: int
    cell: int = 0
    label: str = ""
    done: int = 0
    games_after: int = 0
    seconds_after: float = 0.0
    _cell_games: int = field(default=0, repr=False)

    def begin_cell(self, label: str, games: int) -> None:
        """The next cell, ``label``, of ``games`` games to play."""
        self.cell += 1
        self.label, self._cell_games = label, games

    def end_cell(self, clock: RunClock | None) -> None:
        """The current cell finished (its pace from ``clock``, when it was played with one)."""
        self.done += self._cell_games
        if clock is not None:
            self.games_after += clock.games_after
            self.seconds_after += clock.seconds_after()
        self._cell_games = 0

    def prefix(self) -> str:
        """``study [2/6] mirror-4p / v1.1``."""
        return f"{self.what} [{self.cell}/{self.cells}]" + (f" {self.label}" if self.label else "")

    def text(self, clock: RunClock | None, now: float) -> str:
        """``overall 11,200/60,000 games (18%), about 2 min left`` with the current cell's ``clock``."""
        return overall_text(self, clock, now)


def cells_overall(what: str, cell_games: list[int]) -> Overall:
    """The :class:`Overall` of ``what`` (``study``, ``ladder``) playing cells of ``cell_games`` games each."""
    return Overall(what, len(cell_games), sum(cell_games))


def overall_text(overall: Overall, clock: RunClock | None, now: float) -> str:
    """The count across cells: the finished cells' games plus the current cell's games of this session,
    and the time left at the pace of all the games played after warm-up."""
    done = overall.done + (clock.done - _resumed(clock) if clock is not None else 0)
    games_after = overall.games_after + (clock.games_after if clock is not None else 0)
    seconds_after = overall.seconds_after + (clock.seconds_after() if clock is not None else 0.0)
    eta = eta_seconds(overall.games, done, games_after, seconds_after)
    if eta is not None and clock is not None and clock.last_at is not None:
        eta = max(0.0, eta - (now - clock.last_at))
    return f"overall {count_text(min(done, overall.games), overall.games)}, {left_text(eta)}"


def _resumed(clock: RunClock) -> int:
    """Games the clock's run had done before this session (a resumed cell: not counted as played)."""
    return clock.done - clock.warm_games - clock.games_after


# --------------------------------------------------------------------------------------------------
# showing it


class RunProgress:
    """The progress of one run (a context manager): a rich bar on a terminal, plain lines otherwise,
    nothing when not ``enabled``. ``update(games)`` after each chunk; ``warmup``: what the first
    chunks wait for and how long it took last time, in words (:func:`balancer.sim.warmup.warmup_note`);
    ``overall``: the cells' count to show beside the run's."""

    def __init__(
        self,
        total: int,
        enabled: bool,
        *,
        done: int = 0,
        warm_chunks: int = 1,
        warmup: tuple[str, str] = ("", ""),
        late: tuple[float, str] | None = None,
        overall: Overall | None = None,
        name: str = "run",
        stream: TextIO | None = None,
        interval: float | None = None,
        timer: Callable[[], float] = time.perf_counter,
    ):
        self.timer = timer  # seconds, monotonic; a test's fake clock
        self.clock = RunClock(total, done, warm_chunks, timer())
        self.warmup, self.overall, self.name = warmup, overall, name
        self.late = late  # (seconds, words): a load from numba's cache still running past them is a compile
        self.stream, self.interval = stream, progress_interval() if interval is None else interval
        self.mode = "off" if not enabled else ("bar" if _terminal(stream) else "lines")
        self._lock = threading.Lock()
        self._printed_at = self.clock.started
        self._printed_step = self._step()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bar: Progress | None = None
        self._task: Any = None

    # the text -----------------------------------------------------------------------------------

    def status(self, now: float) -> str:
        """The rate and time left (or what is warming up), and the overall count: what follows the
        count on a line or beside the bar."""
        c = self.clock
        if c.warming:
            elapsed = now - c.started
            what, when = self.warmup
            if self.late is not None and elapsed > self.late[0]:  # numba's cache did not hold it after all
                # said as what it is, not as a promise of the wait: the load limit passed, so it compiles
                text = (
                    f"{self.late[1]} (numba's cache did not hold it after all: a load would be over in under "
                    f"{duration_text(self.late[0])}; a compile is once per machine), "
                )
                text += clock_text(elapsed)
            elif what.startswith("compiling"):
                text = f"{what} ({when}), {clock_text(elapsed)}"
            elif what:
                text = f"{what}, {duration_text(elapsed)} so far ({when})"
            else:
                text = f"starting the workers, {duration_text(elapsed)} so far"
        else:
            rate = c.rate()
            text = f"{pace_text(rate)}, {left_text(c.eta(now))}" if rate is not None else "measuring the pace"
        if self.overall is not None:
            text += "; " + self.overall.text(c, now)
        return text

    def line(self, now: float) -> str:
        """A plain progress line: ``run: 1,200/10,000 games (12%), 410 games/s, about 21 s left``."""
        return f"{self._who()}: {count_text(self.clock.done, self.clock.total)}, {self.status(now)}"

    def final_line(self, now: float) -> str:
        """The last line: ``run: 10,000/10,000 games (10,000 played in 25 s), 410 games/s after 4 s of
        warm-up`` (``(2,000 played, 8,000 from before, in 5 s)`` for a resumed run)."""
        c = self.clock
        rate, warm = c.rate(), c.warmup_seconds()
        pace = pace_text(rate) if rate is not None else ""
        if warm is not None and c.warm_games:
            pace += (" after " if pace else "") + f"{duration_text(warm)} of warm-up"
        before = _resumed(c)
        played = f"{c.done - before:,} played" + (f", {before:,} from before," if before else "")
        text = f"{self._who()}: {c.done:,}/{c.total:,} games ({played} in {duration_text(now - c.started)})"
        return text + (f", {pace}" if pace else "")

    def _who(self) -> str:
        return self.overall.prefix() if self.overall is not None else self.name

    # the display --------------------------------------------------------------------------------

    def __enter__(self) -> RunProgress:
        if self.mode == "bar":
            self._bar = _rich_bar(self)
            self._bar.__enter__()
            self._task = self._bar.add_task("games", total=self.clock.total, completed=self.clock.done)
        elif self.mode == "lines":
            self._print(self.line(self.timer()))
            self._thread = threading.Thread(target=self._heartbeat, name="balancer-progress", daemon=True)
            self._thread.start()
        return self

    def update(self, games: int) -> None:
        """A chunk of ``games`` games finished."""
        now = self.timer()
        with self._lock:
            self.clock.chunk(games, now)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.clock.done)
        elif (
            self.mode == "lines"
            and now - self._printed_at >= self.interval
            and self._step() > self._printed_step
            and self.clock.done < self.clock.total
        ):
            self._print(self.line(now))

    def _step(self) -> int:
        """How many whole 1/STEPS of the run's games are done (0 to STEPS)."""
        c = self.clock
        return STEPS * c.done // c.total if c.total > 0 else 0

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)
        elif self.mode == "lines" and kind is None:
            self._print(self.final_line(self.timer()))

    def _heartbeat(self) -> None:
        """While warming up (no pace yet, a compile's clock): a line every ``interval`` seconds; once
        games are counted, :meth:`update` prints them at 10% steps."""
        step = max(self.interval, 0.2)
        while not self._stop.wait(step):
            now = self.timer()
            if self.clock.warming and now - self._printed_at >= self.interval:
                self._print(self.line(now))

    def _print(self, text: str) -> None:
        with self._lock:
            stream = self.stream if self.stream is not None else sys.stderr
            try:
                stream.write(text + "\n")
                stream.flush()
            except (OSError, ValueError):  # a closed or broken stream: progress is never worth failing a run
                pass
            self._printed_at = self.timer()
            self._printed_step = self._step()


_RICH_TERMINAL_VARIABLES = frozenset(
    {"FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES"}
)
"""Environment variables with which rich may call a stream that is no terminal one (or a notebook)."""


def _terminal(stream: TextIO | None) -> bool:
    """Whether the progress goes to a terminal (rich's judgement, which honours ``FORCE_COLOR`` and
    ``TTY_INTERACTIVE``) or a notebook. A stream that is no terminal, with none of the variables rich
    reads and no IPython, is told without importing rich (a pipe, a log file: CI, scripts)."""
    out = stream if stream is not None else sys.stderr
    try:
        plain = not out.isatty()
    except (AttributeError, OSError, ValueError):
        plain = False
    if plain and "IPython" not in sys.modules and not _RICH_TERMINAL_VARIABLES.intersection(os.environ):
        return False
    from rich.console import Console

    console = Console(file=stream) if stream is not None else Console(stderr=True)
    return bool(console.is_terminal or console.is_jupyter)


def _rich_bar(owner: RunProgress) -> Progress:
    """The rich bar of ``owner``: count, bar, games, elapsed time, then its :meth:`RunProgress.status`."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class StatusColumn(ProgressColumn):
        max_refresh = 0.5

        def render(self, task: Task) -> Text:
            return Text(owner.status(owner.timer()))

    class WhoColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            return Text(owner._who(), style="bold")

    return Progress(
        WhoColumn(),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TextColumn("games", markup=False),
        TimeElapsedColumn(),
        StatusColumn(),
        console=Console(file=owner.stream) if owner.stream is not None else Console(stderr=True),
        transient=False,
    )
