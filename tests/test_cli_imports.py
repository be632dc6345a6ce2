"""The command line reaches the library only through its API (issue 33): every import in balancer/cli,
at the top of a module or inside a function, is of balancer.api, balancer.errors or another module of
the CLI; and no name the package exports is also one of its modules (no callable modules)."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import balancer
from balancer import api

CLI = Path(balancer.__file__).parent / "cli"
ALLOWED = {"balancer.api", "balancer.errors"}


def _library_imports(path: Path) -> list[str]:
    """Every module of the library ``path`` imports (``from balancer import api`` is ``balancer.api``),
    with the line; imports within the CLI (relative, or of ``balancer.cli``) left out."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"balancer.{a.name}" for a in node.names] if node.module == "balancer" else [node.module]
        else:
            continue
        found += [f"{n}:{node.lineno}" for n in names if n.startswith("balancer") and not n.startswith("balancer.cli")]
    return found


def test_the_command_line_imports_only_the_api_and_its_errors() -> None:
    stray = [
        f"{path.name}: {name}"
        for path in sorted(CLI.glob("*.py"))
        for name in _library_imports(path)
        if name.partition(":")[0] not in ALLOWED
    ]
    assert stray == []


def test_no_exported_name_is_also_a_module() -> None:
    modules = {m.name for m in pkgutil.iter_modules(balancer.__path__)}
    assert sorted(set(balancer.__all__) & modules) == []
    assert sorted(set(api.__all__) & modules) == []
    for name in balancer.__all__:  # each is what balancer.api (or balancer.errors) defines
        assert getattr(balancer, name) is not None
