"""Layers (issue 19): nothing outside ``balancer/games/`` names a game's score category or metric.

The names are collected from the games' own declarations (``GameSpec.metrics``,
``games/<game>/metrics.py``); every other module of ``balancer/`` is parsed and each string
literal (f-string pieces included; docstrings are prose and pass) is compared with each name as
code would use it: the plain name, the results column (``score_<name>``, ``metric_<name>``) and
the summary key (``<name>_per_player``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from balancer.games import all_specs

PACKAGE = Path(__file__).resolve().parents[1] / "balancer"

ORDINARY_WORDS = {
    # balancer's own vocabulary that one game also uses as a metric name: a study's and a ladder's
    # "published" values are the rulebook's printed numbers, not Urban Sketchers' count of
    # publications
    "published": "a study's published (printed) values",
}


def declared_names() -> dict[str, str]:
    """Every spelling of every game's declared name -> ``"<game>: <name>"``."""
    out: dict[str, str] = {}
    for spec in all_specs():
        assert spec.metrics is not None, f"{spec.name} declares no metric specs"
        for c in spec.metrics.scores:
            for text in (c.name, f"score_{c.name}"):
                out[text] = f"{spec.name}: score category {c.name}"
        for m in spec.metrics.metrics:
            for text in (m.name, f"metric_{m.name}", f"{m.name}_per_player"):
                out[text] = f"{spec.name}: metric {m.name}"
    return {k: v for k, v in out.items() if k not in ORDINARY_WORDS}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of a module, its classes and functions."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def strings_outside_games() -> list[tuple[str, int, str]]:
    """(path, line, text) of every non-docstring string literal of balancer/ outside games/."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "games") in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                found.append((str(path.relative_to(PACKAGE.parent)), node.lineno, node.value))
    return found


def test_the_scan_sees_what_it_looks_for() -> None:
    # the scan finds a literal that names a metric, in a module outside games/ as it parses them
    names = declared_names()
    assert "score_seat_bonus" in names and "metric_game_turns" in names and "solo_win_per_player" in names
    tree = ast.parse('COLUMN = "score_seat_bonus"\ndef f():\n    """score_seat_bonus"""\n    return f"{x}solo_win"\n')
    skip = _docstrings(tree)
    texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    hits = [t for n in ast.walk(tree) if isinstance(n, ast.Constant) and id(n) not in skip and (t := n.value) in names]
    assert len(texts) == 3 and hits == ["score_seat_bonus", "solo_win"]


@pytest.mark.parametrize("word", sorted(ORDINARY_WORDS))
def test_ordinary_words_are_still_declared_names(word: str) -> None:
    # an exemption that no game declares any more is stale
    assert any(
        word in {m.name for m in s.metrics.metrics} | {c.name for c in s.metrics.scores}
        for s in all_specs()
        if s.metrics
    )


def test_no_module_outside_games_names_a_games_metric() -> None:
    names = declared_names()
    hits = [f"{path}:{line}: {text!r} ({names[text]})" for path, line, text in strings_outside_games() if text in names]
    assert hits == [], "\n".join(hits)


def test_the_command_line_starts_without_the_report_and_statistics_layers() -> None:
    # 'balancer run' pays for every module the CLI imports at start (matplotlib, scipy.stats and the
    # report were about 130 MB and 3 s of every run): the command modules and the error mapping
    # import them only when a command needs them
    import subprocess
    import sys

    code = (
        "import sys, balancer.cli\n"
        "heavy = [m for m in ('matplotlib', 'scipy.stats', 'balancer.report.render', 'balancer.check.run', "
        "'balancer.study.runner') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_run_of_one_job_imports_only_what_it_uses(tmp_path) -> None:
    # a warm 'balancer run' of a few games was 2.2 s, over half of it imports it did not use (issue 30):
    # scipy.stats (the error mapping loaded the check's errors with the check), pandas (pyarrow asks
    # whether an array is a pandas one), pyarrow.compute (a dictionary cast), joblib (one job plays in
    # this process) and rich (the progress goes to a pipe here, which is no terminal)
    import os
    import subprocess
    import sys

    code = (
        "import atexit, sys\n"
        "heavy = ('matplotlib', 'jinja2', 'scipy.stats', 'pandas', 'pyarrow.compute', 'joblib', 'rich', "
        "'duckdb', 'dask', 'balancer.report', 'balancer.check.run', 'balancer.study.runner')\n"
        "atexit.register(lambda: print('loaded:', ','.join(m for m in heavy if m in sys.modules)))\n"
        "from balancer.entry import main\n"
        "main()\n"
    )
    args = ["run", "urgency/no-cards", "-p", "2", "-a", "random", "-n", "4", "--jobs", "1"]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    out = subprocess.run(
        [sys.executable, "-c", code, *args, "--out", str(tmp_path / "r")],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "loaded: "


@pytest.mark.parametrize("package", ["balancer.check", "balancer.study", "balancer.sim"])
def test_lazy_packages_export_what_they_list(package: str) -> None:
    # PEP 562 exports: every listed name loads from its submodule, and an unknown one is an AttributeError
    import importlib

    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(module._WHERE)
    for name in module.__all__:
        assert getattr(module, name).__name__ == name
    with pytest.raises(AttributeError):
        _ = module.no_such_name
