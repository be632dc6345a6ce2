"""Modules that are also the library call of their name: ``balancer.report(result, path)`` and
``balancer.compare(a, b, ...)`` (:mod:`balancer.api`).

``balancer.report`` is the report package and ``balancer.compare`` the module that compares two
variants; Python binds an imported submodule as an attribute of its package, so a function of the
same name on :mod:`balancer` would be replaced by the module as soon as anything imported it.
Instead the module itself is callable: calling it calls :func:`balancer.api.report` (or
``compare``), while ``balancer.report.render`` and every import keep working.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class CallableModule(types.ModuleType):
    """A module that, called, runs the :mod:`balancer.api` function of its own (last) name."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from balancer import api

        return getattr(api, self.__name__.rpartition(".")[2])(*args, **kwargs)


def make_callable(module_name: str) -> None:
    """Make the imported module ``module_name`` a :class:`CallableModule` (its attributes unchanged)."""
    sys.modules[module_name].__class__ = CallableModule
