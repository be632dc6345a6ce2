"""The progress bar of a run (on stderr; rich), shared by :func:`balancer.sim.play.run_games` and
:func:`balancer.sim.runner.run_to_dir`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress


def progress_bar(total: int, enabled: bool) -> Progress:
    """A bar of ``total`` games with the rate (a task field ``rate``), elapsed and remaining time;
    shows nothing when not ``enabled``."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("elapsed,"),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=Console(stderr=True),
        disable=not enabled,
        transient=False,
    )
