"""The check's errors, in a module that imports nothing: :mod:`balancer.errors` (and so the command line's
error mapping, which every command enters) names them without importing the check's statistics, its
baselines' Parquet reading or scipy (about half a second of every command's start-up). They are raised
by :mod:`.baseline` and :mod:`.run`, which re-export them."""

from __future__ import annotations


class BaselineError(ValueError):
    """A baseline that cannot be used (missing, unreadable, another study's); ``str()`` names the file."""


class CheckGameError(RuntimeError):
    """A game of the check raised: an engine bug, not bad input (exit 1). ``str()`` names the cell,
    the game, the error and the ``balancer play`` command that replays it."""


class UnderpoweredError(ValueError):
    """The check cannot find its tolerance at its miss rate with the games it may play, and
    ``allow_underpowered`` was not given: a PASS would be blind. ``str()`` is one line naming the study
    file, each weak cell and the games it would need (bad input: exit 2, nothing played)."""
