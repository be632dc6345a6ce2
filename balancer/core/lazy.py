"""Package exports loaded on first use (PEP 562), so that importing one submodule of a package
does not import all of them (the command line's start-up pays for every module it imports)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, where: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from the submodule
    ``where[name]`` (relative, e.g. ``".run"``) on first access and stores it in ``namespace`` (the
    package's ``globals()``); an unknown name is an AttributeError, as for any module."""

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name], package), name)
        namespace[name] = value
        return value

    return __getattr__
