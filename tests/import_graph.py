"""The import graph of the ``balancer`` package, read from the source (``ast``), never by importing it.

Used by ``tests/test_architecture.py`` (the floors and the arrows that must never exist) and by
``make floors`` (``python tests/import_graph.py``: the floors, the circles, the arrows that run up).
Every import counts, at the top of a module or inside a function, except those under
``if TYPE_CHECKING:`` (they never run).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "balancer"


def module_name(path: Path) -> str:
    """``balancer/games/urgency/kernel.py`` -> ``balancer.games.urgency.kernel`` (a package's
    ``__init__.py`` is the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, here: str, is_package: bool, known: Iterable[str]) -> Iterable[str]:
    """The modules ``here`` imports, as absolute names (``from x import y``: ``x.y`` when it is one
    of the ``known`` modules, else ``x``)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".") if is_package else here.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            for alias in node.names:  # a submodule by name, else a name defined in ``prefix``
                yield f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in known else prefix
        stack.extend(ast.iter_child_nodes(node))


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself excluded)."""
    files = {module_name(p): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = set()
        for imported in _imports(tree, name, path.name == "__init__.py", files):
            # the longest known module that the import names (``a.b.c`` -> ``a.b`` when c is a function)
            while imported and imported not in files:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def part_of(module: str, parts: dict[str, tuple[str, ...]]) -> str | None:
    """The part (a name of ``parts``) whose prefixes hold ``module``, longest prefix first; the
    package itself (``balancer``) is held only by that exact name."""
    best, length = None, -1
    for part, prefixes in parts.items():
        for prefix in prefixes:
            inside = module == prefix or (prefix != "balancer" and module.startswith(prefix + "."))
            if inside and len(prefix) > length:
                best, length = part, len(prefix)
    return best


def arrows(graph: dict[str, set[str]], parts: dict[str, tuple[str, ...]]) -> dict[tuple[str, str], list[str]]:
    """(part, part) -> the module imports that make that arrow, ``a -> b`` each."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for a, targets in graph.items():
        pa = part_of(a, parts)
        for b in targets:
            pb = part_of(b, parts)
            if pa and pb and pa != pb:
                found[(pa, pb)].append(f"{a} -> {b}")
    return found


PARTS: dict[str, tuple[str, ...]] = {
    "cli": ("balancer.cli", "balancer.__main__", "balancer.entry"),
    "api": ("balancer.api", "balancer", "balancer.errors"),
    "commands": (
        "balancer.study",
        "balancer.sweep",
        "balancer.tune",
        "balancer.ladder",
        "balancer.check",
        "balancer.compare",
        "balancer.history",
        "balancer.catalog",
        "balancer.starter",
    ),
    "report": ("balancer.report",),
    "sim": ("balancer.sim",),
    "testing": ("balancer.testing",),
    "agents": ("balancer.agents",),
    "games": ("balancer.games",),
    "stats": ("balancer.stats",),
    "config": (
        "balancer.config",
        "balancer.config_show",
        "balancer.files",
        "balancer.data",
        "balancer.naming",
        "balancer.paths",
    ),
    "outcomes": ("balancer.outcomes",),
    "core": ("balancer.core",),
    "base": (
        "balancer.interrupts",
        "balancer.limits",
        "balancer.numtext",
        "balancer.outdir",
        "balancer.text",
        "balancer.version",
    ),
}
"""The floors of docs/architecture.md, by module prefix; ``base``: the small helpers every floor may use."""


def part_graph(graph: dict[str, set[str]], parts: dict[str, tuple[str, ...]]) -> dict[str, set[str]]:
    """Part -> the parts it imports."""
    deps: dict[str, set[str]] = {p: set() for p in parts}
    for pa, pb in arrows(graph, parts):
        deps[pa].add(pb)
    return deps


def floors(graph: dict[str, set[str]], parts: dict[str, tuple[str, ...]]) -> list[list[str]]:
    """The parts by floor, ground first: a part stands one floor above the highest part it imports.
    Parts in a circle share one floor, written ``a+b``."""
    deps = part_graph(graph, parts)
    group = {p: p for p in parts}
    for circle in circles(deps):
        for p in circle:
            group[p] = "+".join(circle)
    below: dict[str, set[str]] = defaultdict(set)
    for p, qs in deps.items():
        below[group[p]] |= {group[q] for q in qs if group[q] != group[p]}
    level: dict[str, int] = {}

    def height(g: str) -> int:
        if g not in level:
            level[g] = 1 + max((height(q) for q in below[g]), default=-1)
        return level[g]

    out: list[list[str]] = []
    for g in sorted(set(group.values())):
        h = height(g)
        out.extend([] for _ in range(h + 1 - len(out)))
        out[h].append(g)
    return out


def main() -> int:
    graph = import_graph()
    print(f"{len(graph)} modules, {sum(len(t) for t in graph.values())} imports")
    found = circles(graph)
    print(f"circles: {len(found)}")
    for c in found:
        print("  " + " <-> ".join(c))
    stack = floors(graph, PARTS)
    print("floors (ground first): " + " | ".join(", ".join(f) for f in stack))
    height = {p: i for i, f in enumerate(stack) for g in f for p in g.split("+")}
    up = [(a, b, ms) for (a, b), ms in sorted(arrows(graph, PARTS).items()) if height[b] >= height[a]]
    print(f"arrows that run up (between parts in a circle): {len(up)}")
    for a, b, ms in up:
        print(f"  {a} -> {b}: {ms[0]}" + (f" and {len(ms) - 1} more" if len(ms) > 1 else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
