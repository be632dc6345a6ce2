"""The ``balancer play`` command that replays one game of a run: what the runner prints for a game that
raised and the terminal, report and ``check`` print for a game a safety stop ended. Here, below
``sim`` and ``report``, so that both can name it without importing each other."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path


def replay_command(config_path: Path | str, agents: Sequence[str], seed: int, game_index: int) -> str:
    """The ``balancer play`` command that replays game ``game_index`` of a run (shell-quoted)."""
    return shlex.join(
        [
            "balancer",
            "play",
            str(config_path),
            "--players",
            str(len(agents)),
            "--agents",
            ",".join(agents),
            "--seed",
            str(seed),
            "--game-index",
            str(game_index),
        ]
    )
