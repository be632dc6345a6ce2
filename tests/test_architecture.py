"""The floors of docs/architecture.md, held against the code's own imports (read from the source by
``tests/import_graph.py``, never by importing the package): no import circles, and none of the arrows
that must never exist. ``make floors`` prints the whole picture."""

from __future__ import annotations

import re

import pytest
from import_graph import PACKAGE, PARTS, arrows, circles, import_graph, part_of

GRAPH = import_graph()

NEVER = [
    ("games", "agents", "games know rules, not the generic agents"),
    ("games", "sim", "games know nothing of runs"),
    ("core", "games", "the ground floor names no game"),
    ("core", "agents", "the ground floor names no agent"),
    ("report", "commands", "the renderer stands below what it renders"),
    ("stats", "sim", "statistics know no run directory"),
    ("agents", "games", "generic agents know only the compiled interface"),
]


def test_the_graph_is_read():
    # the reader finds what is certainly there: the CLI's app imports the API, the games import core
    assert "balancer.api" in GRAPH["balancer.cli.app"]
    assert any(m.startswith("balancer.core") for m in GRAPH["balancer.games.citywright.kernel"])


def test_no_import_circles():
    found = circles(GRAPH)
    assert found == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(("source", "target", "why"), NEVER, ids=[f"{a}-{b}" for a, b, _ in NEVER])
def test_no_forbidden_arrow(source, target, why):
    found = arrows(GRAPH, PARTS).get((source, target), [])
    assert found == [], f"{why}:\n" + "\n".join(found)


def test_the_cli_imports_only_the_api():
    # the library's errors too: api.errors; and the record of signals taken (balancer.interrupts, importing
    # nothing), which the console entry must reach before the command line and the API are imported
    allowed = {"balancer.api", "balancer", "balancer.interrupts"}
    found = [
        f"{m} -> {t}"
        for m, targets in GRAPH.items()
        if part_of(m, PARTS) == "cli"
        for t in targets
        if part_of(t, PARTS) != "cli" and t not in allowed
    ]
    assert found == [], "the CLI reaches the library only through balancer.api:\n" + "\n".join(found)


def test_core_names_no_game_in_strings():
    # the registry finds games by entry point, not by a module path written in core
    text = "\n".join(p.read_text(encoding="utf-8") for p in (PACKAGE / "core").rglob("*.py"))
    assert not re.search(r"balancer\.games\.\w+", text)


def test_matplotlib_only_in_report_figures():
    # (sim/provenance.py names matplotlib only as a package whose version run.json records)
    figures = PACKAGE / "report" / "figures"
    found = [
        str(p.relative_to(PACKAGE.parent))
        for p in PACKAGE.rglob("*.py")
        if re.search(r"^\s*(import|from) matplotlib", p.read_text(encoding="utf-8"), re.M) and figures not in p.parents
    ]
    assert found == [], "every figure is drawn in balancer/report/figures/:\n" + "\n".join(found)
