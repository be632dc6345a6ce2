"""Every exception the library raises on purpose, in one place: ``except balancer.errors.ConfigError``
(the common ones are also ``balancer.ConfigError`` ...). Each is defined beside the code that raises
it; this module only names them, so a caller (a notebook, the command line's error mapping in
:mod:`balancer.cli.errors`) needs no path into the library's packages.

Bad input (the message names the file, key or parameter; the command line exits 2):
:class:`ConfigError` (a YAML variant), :class:`StudyError`, :class:`BaselineError`, :class:`SweepError`,
:class:`HistoryError`, :class:`ResultsFileError`, :class:`InputLimitError`, :class:`StarterError`,
:class:`UnderpoweredError`, :class:`RunRequestError` (a ValueError naming the request's ``field``;
:class:`SchedulerError`, :class:`ResumeError`), :class:`ResultsExistError` (:class:`RunLockedError`),
:class:`OutDirError` and :class:`UnsafeOutputError` (an output path), :class:`ReportOutputError` (a page
that cannot be written). An installed game that cannot be used (its ``balancer.games`` entry point is malformed or fails to
import; an ImportError): :class:`GameImportError`. Games that raised: :class:`GamesFailedError` (a run; the others are written),
:class:`CheckGameError` (a check). Interrupted: :class:`RunInterrupted` (a KeyboardInterrupt).

:class:`Spelled` is the mix-in of an error whose message names an option, in the library's words
(``force=True``) or the command line's (``--force``); :func:`option_name` spells a parameter as its option.

The errors of modules that are slow to import (the report, the check, the sweep) are loaded on first
use (PEP 562), so that importing this module stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from balancer.check.errors import BaselineError, CheckGameError, UnderpoweredError
from balancer.config import ConfigError
from balancer.core.lazy import lazy_exports
from balancer.core.registry import GameImportError
from balancer.limits import InputLimitError
from balancer.outdir import ResultsExistError, Spelled, UnsafeOutputError
from balancer.sim.errors import (
    GamesFailedError,
    OutDirError,
    ResumeError,
    RunInterrupted,
    RunLockedError,
    RunRequestError,
    SchedulerError,
    option_name,
)
from balancer.study import StudyError

if TYPE_CHECKING:
    from balancer.history.store import HistoryError
    from balancer.report.render import ReportOutputError
    from balancer.sim.results import ResultsFileError
    from balancer.starter import StarterError
    from balancer.sweep.model import SweepError

_WHERE = {
    "StarterError": "balancer.starter",
    "HistoryError": "balancer.history.store",
    "ReportOutputError": "balancer.report.render",
    "ResultsFileError": "balancer.sim.results",
    "SweepError": "balancer.sweep.model",
}
__getattr__ = lazy_exports(__name__, _WHERE, globals())

__all__ = [
    "BaselineError",
    "CheckGameError",
    "ConfigError",
    "GameImportError",
    "GamesFailedError",
    "HistoryError",
    "InputLimitError",
    "OutDirError",
    "ReportOutputError",
    "ResultsExistError",
    "ResultsFileError",
    "ResumeError",
    "RunInterrupted",
    "RunLockedError",
    "RunRequestError",
    "SchedulerError",
    "Spelled",
    "StarterError",
    "StudyError",
    "SweepError",
    "UnderpoweredError",
    "UnsafeOutputError",
    "option_name",
]
