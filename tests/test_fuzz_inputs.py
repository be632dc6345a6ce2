"""Property-based fuzzing (hypothesis) of every file the CLI reads (issue 15).

Each kind of file is one :class:`FileKind`: a strategy that writes a mutated file (from the shipped
configs, a study, the committed baseline) and the command that reads it. Every mutation (keys
deleted, renamed, retyped, values out of range, nested deeper, hostile names) either validates and is
used (a game played, a study run, a check decided), or is refused with exit 2 and error lines that
each name the file, with no traceback and nothing written. A new kind of file is one more entry of
:data:`FILE_KINDS` (sweep and tune files were added so, each a strategy and a use).

The budget is bounded (``max_examples`` per kind, a few tens of seconds in all); under ``CI=true``
the examples are derandomized so that a CI run is repeatable. The counts of cases per kind and
outcome are printed at the end of the session (tests/conftest.py).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from balancer.cli import app
from balancer.config import load_config, resolve_yaml
from balancer.core.registry import GAMES, get_spec

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
FUZZ_SCALE = float(os.environ.get("BALANCER_FUZZ_SCALE", "1"))
"""Multiplies every kind's ``max_examples`` (a longer hunt: ``BALANCER_FUZZ_SCALE=20``)."""
FUZZ_COUNTS: Counter = Counter()
"""(kind, outcome) -> cases run in this session; printed by tests/conftest.py."""

# no shrinking: a failing case is reported with the mutations that made it (shrinking one took minutes)
settings.register_profile(
    "fuzz",
    deadline=None,
    database=None,
    derandomize=bool(os.environ.get("CI")),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)


def shipped_variants() -> list[Path]:
    """Every shipped rule-variant file (studies and fragments left out), by game."""
    out = []
    for game in sorted(GAMES):
        for path in sorted((CONFIGS / game).glob("*.yaml")):
            head = yaml.safe_load(path.read_text(encoding="utf-8"))
            if isinstance(head, dict) and "study" not in head and ("game" in head or "extends" in head):
                out.append(path)
    return out


VARIANTS = shipped_variants()


# --------------------------------------------------------------------------------------------------
# mutations of a YAML/JSON document (nested dicts, lists, scalars)

HOSTILE_STRINGS = [
    "../../../escaped",
    "/srv/elsewhere",
    "<i>x</i><script>alert(1)</script>",
    "x" * 300,
    "",
    " ",
    "\u202eevil",
    "é",
    "4",
    "yes",
    "null",
    "a: b",
    "{",
    "*",
    "C:\\temp",
]
DEPTHS = [3, 30, 63, 64, 65, 120, 250]
"""Levels of nesting a ``deepen`` mutation adds (MAX_DEPTH, 64, is the limit; 250 stays within what
yaml.safe_dump itself can write)."""
SIZES = [1_000, 100_000, 1_100_000]
"""Characters (or eighths of list items) a ``grow`` mutation writes: the last is past the 1 MB a config may have."""
HOSTILE_NUMBERS = [-1, 0, 1, 2, 7, 1000, 1001, -1001, 2**31, 2**63 - 1, 2**63, 2**64 + 1, 10**23, -(10**23)]


def paths_of(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path inside ``node`` (dict keys and list indices), outermost first."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append(prefix + (k,))
            out.extend(paths_of(v, prefix + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append(prefix + (i,))
            out.extend(paths_of(v, prefix + (i,)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    node = doc
    for key in path[:-1]:
        node = node[key]
    return node


def replacement(draw, old: Any) -> Any:
    """A value of another type, out of range, nested deeper, or hostile, in place of ``old``."""
    options = [
        st.sampled_from(HOSTILE_NUMBERS),
        st.integers(-(2**70), 2**70),
        st.sampled_from(HOSTILE_STRINGS),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.none(),
        st.just([old]),
        st.just({"value": old}),
        st.just([]),
        st.just({}),
    ]
    if isinstance(old, int) and not isinstance(old, bool):
        options += [
            st.integers(old - 3, old + 3),
            st.just(-old),
            st.just(old * 1000),
            st.just(str(old)),
            st.just(float(old)),
        ]
    if isinstance(old, list) and old:
        options += [st.just(old[:-1]), st.just(old + old[-1:]), st.just(old * 3)]
    if isinstance(old, str):
        options += [st.just(old.upper()), st.just(old + "x"), st.just(old * 50)]
    return draw(st.one_of(*options))


@st.composite
def mutated(draw, doc: Any, protect: tuple = ()) -> tuple[Any, list[str]]:
    """``doc`` with 1-3 mutations; returns (new document, descriptions). Keys in ``protect`` (top level)
    are left in place (deleting ``game:`` just gives the one missing-game line every time)."""
    doc = copy.deepcopy(doc)
    done = []
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in paths_of(doc) if p and p[0] not in protect]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _parent(doc, path), path[-1]
        kind = draw(
            st.sampled_from(["delete", "rename", "replace", "replace", "replace", "nest", "add", "deepen", "grow"])
        )
        if kind == "delete":
            del parent[key]
        elif kind == "rename" and isinstance(parent, dict):
            new = draw(
                st.sampled_from(
                    [f"{key}s", f"{key}_", str(key)[:-1] or "x", "extra", str(key).upper()] + HOSTILE_STRINGS[:3]
                )
            )
            if new in parent:
                continue
            parent[new] = parent.pop(key)
        elif kind == "nest":
            parent[key] = {str(key): parent[key]} if draw(st.booleans()) else [parent[key], parent[key]]
        elif kind == "deepen":  # issue 28: up to 250 levels of lists or mappings (the limit is 64)
            levels, mapping = draw(st.sampled_from(DEPTHS)), draw(st.booleans())
            for _ in range(levels):
                parent[key] = {"k": parent[key]} if mapping else [parent[key]]
            kind = f"deepen by {levels}"
        elif kind == "grow":  # issue 28: a value or a list far larger than any real one, up to past 1 MB
            size = draw(st.sampled_from(SIZES))
            parent[key] = "x" * size if draw(st.booleans()) else [1] * max(1, size // 8)
            kind = f"grow to {size:,}"
        elif kind == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["bogus", "assumed", "extends", "variant", "players"]))] = replacement(
                draw, parent[key]
            )
        else:
            parent[key] = replacement(draw, parent[key])
        done.append(f"{kind} {'.'.join(map(str, path))}")
    return doc, done


# --------------------------------------------------------------------------------------------------
# what every outcome must look like


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def assert_refused_cleanly(result, path: Path, what: str) -> None:
    """Exit 2; every line an ``error:`` line or a line naming the file; no traceback, no crash."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{what}: crashed with {result.exception!r}\n{result.output}"
    )
    assert result.exit_code == 2, f"{what}: exit {result.exit_code}\n{result.output}"
    assert "Traceback" not in result.output, f"{what}: traceback\n{result.output}"
    lines = [x for x in result.output.strip().splitlines() if x and not x.startswith("note: compiling")]
    assert lines and lines[0].startswith("error: "), f"{what}: no error line\n{result.output}"
    assert all(str(path) in x for x in lines), f"{what}: a line that names no file\n{result.output}"


def assert_no_crash(result, what: str) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{what}: crashed with {result.exception!r}\n{result.output}"
    )
    assert "Traceback" not in result.output, f"{what}: traceback\n{result.output}"


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


# --------------------------------------------------------------------------------------------------
# file kinds


@dataclass(frozen=True)
class FileKind:
    """One kind of input file: ``cases`` draws (file name, text, description) into a folder; ``use``
    reads it with the CLI and checks the outcome (``use(folder, path, description) -> outcome``)."""

    name: str
    cases: Callable[[], st.SearchStrategy]
    use: Callable[[Path, Path, str], str]
    max_examples: int


@st.composite
def variant_cases(draw) -> tuple[str, str, str]:
    """A shipped variant, resolved (every inherited key present), mutated; either the whole mapping or a
    file that ``extends:`` the shipped one with one mutated section."""
    source = draw(st.sampled_from(VARIANTS))
    data = resolve_yaml(source).data
    doc, done = draw(mutated(data, protect=("game",)))
    if draw(st.booleans()):
        section = draw(st.sampled_from(sorted(k for k in doc if k != "game") or ["variant"]))
        doc = {"extends": str(source), **({section: doc[section]} if section in doc else {})}
    text = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)
    return "variant.yaml", text, f"{source.relative_to(ROOT)}: {'; '.join(done)}"


def use_variant(folder: Path, path: Path, what: str) -> str:
    before = tree(folder)
    result = invoke("validate", path)
    if result.exit_code != 0:
        assert_refused_cleanly(result, path, what)
        assert tree(folder) == before, f"{what}: validate wrote files"
        return "refused"
    cfg = load_config(path)
    spec = get_spec(cfg.game)
    agent = "random" if "random" in spec.agents else spec.agents[0]
    players = cfg.player_counts[0]
    out = folder / "out"
    result = invoke("run", path, "-p", players, "-a", agent, "-n", 1, "-j", 1, "-q", "--seed", 3, "--out", out)
    assert_no_crash(result, what)
    assert result.exit_code == 0, (
        f"{what}: validated, but its game did not play (exit {result.exit_code})\n{result.output}"
    )
    assert (out / "results.parquet").is_file()
    shutil.rmtree(out)
    return "played"


STUDY_BASE = {
    "study": "fuzz",
    "title": "A fuzzed study",
    "game": "citywright",
    "seed": 5,
    "variants": {"v1.1": str(CONFIGS / "citywright" / "v1.1.yaml"), "v1.0": str(CONFIGS / "citywright" / "v1.0.yaml")},
    "runs": {
        "mirror-2p": {
            "players": 2,
            "agents": ["random"],
            "games": 4,
            "expect": {"seat_win_rate": {"between": [0.1, 0.9]}},
        },
        "mixed-2p": {"players": 2, "agents": ["random", "greedy"], "games": 4},
    },
    "figures": [
        {"title": "Seats", "run": "mirror-2p", "show": "seat_win_rate", "published": {"v1.1": [50, 50]}},
        {"title": "Wasted", "run": "mirror-2p", "show": "metric:wasted_tiles"},
    ],
    "check": {"tolerance": {"win_rate": 0.05}, "looks": 2, "metrics": ["wasted_tiles_per_player"]},
}


@st.composite
def study_cases(draw) -> tuple[str, str, str]:
    doc, done = draw(mutated(STUDY_BASE))
    return "study.yaml", yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), "; ".join(done)


def use_study(folder: Path, path: Path, what: str) -> str:
    before = tree(folder)
    result = invoke("validate", path)
    if result.exit_code != 0:
        assert_refused_cleanly(result, path, what)
        assert tree(folder) == before, f"{what}: validate wrote files"
        return "refused"
    runs = yaml.safe_load(path.read_text(encoding="utf-8"))["runs"]
    if sum(r["games"] for r in runs.values()) * len(yaml.safe_load(path.read_text())["variants"]) > 200:
        return "validated"  # valid, but too many games for the budget
    results, html = folder / "results", folder / "report.html"
    result = invoke("study", path, "-o", html, "--results", results, "-j", 1, "-q")
    assert_no_crash(result, what)
    assert result.exit_code == 0, f"{what}: validated, but the study did not run\n{result.output}"
    assert html.is_file()
    assert all(str(p.resolve()).startswith(str(folder.resolve())) for p in folder.rglob("*"))
    shutil.rmtree(results)
    html.unlink()
    return "played"


CI_STUDY = CONFIGS / "citywright" / "ci.yaml"
BASELINE = json.loads((ROOT / "baselines" / "citywright-ci.json").read_text(encoding="utf-8"))


@st.composite
def baseline_cases(draw) -> tuple[str, str, str]:
    doc, done = draw(mutated(BASELINE))
    return "baseline.json", json.dumps(doc, allow_nan=True), "; ".join(done)


def use_baseline(folder: Path, path: Path, what: str) -> str:
    before = tree(folder)
    result = invoke(
        "check", CI_STUDY, "--baseline", path, "--max-games", 40, "--looks", 1, "-j", 1, "-q", "--allow-underpowered"
    )
    if result.exit_code == 2:
        assert_refused_cleanly(result, path, what)
        assert tree(folder) == before, f"{what}: check wrote files"
        return "refused"
    assert_no_crash(result, what)
    assert result.exit_code in (0, 1), f"{what}: exit {result.exit_code}\n{result.output}"
    assert tree(folder) == before
    return "checked"


SWEEP_BASE = {
    "sweep": "fuzz",
    "title": "A fuzzed sweep",
    "base": str(CONFIGS / "citywright" / "v1.1.yaml"),
    "seed": 3,
    "runs": {"mirror-2p": {"players": 2, "agents": ["random"], "games": 6}},
    "paths": {"seat_bonus.2[1]": {"from": 0, "to": 2}},
    "target": {"seat_win_rate": "equal", "seat_win_rate:2": {"between": [0.3, 0.7]}},
}
TUNE_BASE = {
    "tune": "fuzz",
    "title": "A fuzzed tune",
    "base": str(CONFIGS / "citywright" / "v1.1.yaml"),
    "seed": 3,
    "runs": {"mirror-2p": {"players": 2, "agents": ["random"], "games": 60}},
    "space": {"seat_bonus.2[0]": {"int": [0, 2]}, "seat_bonus.2[1]": {"int": [0, 2]}},
    "objective": {"seat_win_rate": "equal"},
    "search": {"sampler": "auto", "rungs": 2, "eta": 3},
    "budget": {"games": 400},
    "confirm": {"half_width": 0.2},
}


def yaml_cases(base: dict, name: str):
    """Mutations of the mapping ``base``, written as ``name``."""

    @st.composite
    def cases(draw) -> tuple[str, str, str]:
        doc, done = draw(mutated(base))
        return name, yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), "; ".join(done)

    return cases


def use_validated(command: str | None, games_of: Callable[[dict], int] | None = None, limit: int = 200):
    """``validate`` the file; when it is valid and plays at most ``limit`` games (``games_of``), run it with
    ``command`` (``sweep``: report and cells in the case's folder); check the outcome either way."""

    def use(folder: Path, path: Path, what: str) -> str:
        before = tree(folder)
        result = invoke("validate", path)
        if result.exit_code != 0:
            assert_refused_cleanly(result, path, what)
            assert tree(folder) == before, f"{what}: validate wrote files"
            return "refused"
        assert_no_crash(result, what)
        try:
            games = games_of(yaml.safe_load(path.read_text(encoding="utf-8"))) if games_of else limit + 1
        except (KeyError, TypeError, ValueError):  # a valid form the count above does not read
            games = limit + 1
        if command is None or games > limit:
            return "validated"
        result = invoke(command, path, "-o", folder / "report.html", "--results", folder / "results", "-j", 1, "-q")
        assert_no_crash(result, what)
        assert result.exit_code == 0, f"{what}: validated, but '{command}' failed\n{result.output}"
        assert all(str(p.resolve()).startswith(str(folder.resolve())) for p in folder.rglob("*"))
        return "played"

    return use


def sweep_games(doc: dict) -> int:
    points = 1
    for spec in doc["paths"].values():
        points *= len(spec["values"]) if "values" in spec else abs(int(spec["to"]) - int(spec["from"])) + 1
    return points * sum(int(r["games"]) for r in doc["runs"].values())


GRID_COUNTS = [1, 2, 3, 7, 30, 150, 400, 10_001, 30_000]
"""Values per sweep path of the ``sweep-grid`` kind: products up to 4,500 points validate; 150 x 400 and
more are past MAX_GRID_POINTS (10,000) and refused before any value is checked."""


@st.composite
def sweep_grid_cases(draw) -> tuple[str, str, str]:
    """A valid sweep whose two paths have drawn value counts, as ranges or lists (issue 28: a two-path
    sweep of four million points validated for minutes)."""
    doc = copy.deepcopy(SWEEP_BASE)
    doc["paths"] = {}
    counts = []
    for key in ("seat_bonus.2[0]", "seat_bonus.2[1]"):
        n = draw(st.sampled_from(GRID_COUNTS))
        doc["paths"][key] = {"from": 0, "to": n - 1} if draw(st.booleans()) else list(range(n))
        counts.append(n)
    return "sweep.yaml", yaml.safe_dump(doc, sort_keys=False), " x ".join(map(str, counts))


def use_sweep_grid(folder: Path, path: Path, what: str) -> str:
    """Validate in bounded time: a grid past the limit is refused with the points counted, any other
    outcome is clean (a value past a rule's bound is refused too)."""
    import time

    from balancer.limits import MAX_GRID_POINTS

    counts = [int(c) for c in what.split("(", 1)[1].rstrip(")").split(" x ")]
    started = time.perf_counter()
    result = invoke("validate", path)
    assert time.perf_counter() - started < 120, f"{what}: validation took minutes"
    if counts[0] * counts[1] > MAX_GRID_POINTS:
        assert_refused_cleanly(result, path, what)
        assert "points; a sweep has at most" in result.output or "at most 10,000" in result.output, result.output
        return "refused"
    if result.exit_code != 0:
        assert_refused_cleanly(result, path, what)
        return "refused"
    assert_no_crash(result, what)
    return "validated"


FILE_KINDS = [
    FileKind("variant", variant_cases, use_variant, max_examples=50),
    FileKind("study", study_cases, use_study, max_examples=40),
    FileKind("baseline", baseline_cases, use_baseline, max_examples=25),
    FileKind(
        "sweep", yaml_cases(SWEEP_BASE, "sweep.yaml"), use_validated("sweep", sweep_games, limit=40), max_examples=15
    ),
    FileKind("tune", yaml_cases(TUNE_BASE, "tune.yaml"), use_validated(None), max_examples=20),
    FileKind("sweep-grid", sweep_grid_cases, use_sweep_grid, max_examples=8),
]
"""Every kind of file the CLI reads; a new kind is one more FileKind. Tune files are validated only (a
tune's search, even a small one, is too slow for this budget; its own tests play known-answer tunes)."""


@pytest.mark.parametrize("kind", FILE_KINDS, ids=lambda k: k.name)
def test_every_mutation_is_used_or_refused_cleanly(kind: FileKind, tmp_path_factory):
    @settings(settings.get_profile("fuzz"), max_examples=max(1, round(kind.max_examples * FUZZ_SCALE)))
    @given(case=kind.cases())
    def check(case):
        name, text, what = case
        folder = tmp_path_factory.mktemp(kind.name)
        path = folder / name
        path.write_text(text, encoding="utf-8")
        outcome = kind.use(folder, path, f"{kind.name} ({what})")
        FUZZ_COUNTS[(kind.name, outcome)] += 1
        shutil.rmtree(folder)

    check()


def test_the_fuzzer_sees_every_game_and_every_key():
    # the variants come from every registered game, and mutations can reach every key path
    assert {resolve_yaml(p).data["game"] for p in VARIANTS} == set(GAMES)
    doc = {"a": {"b": [1, 2]}, "c": "x"}
    assert paths_of(doc) == [("a",), ("a", "b"), ("a", "b", 0), ("a", "b", 1), ("c",)]


@settings(max_examples=30, database=None, deadline=None)
@given(st.data())
def test_a_deletion_removes_the_key_it_names(data):
    doc = {"a": {"b": [1, 2]}, "c": "x"}
    new, done = data.draw(mutated(doc))
    assert doc == {"a": {"b": [1, 2]}, "c": "x"}, "the source document was changed in place"
    for line in done:
        kind, _, where = line.partition(" ")
        if kind == "delete" and where == "c":
            assert "c" not in new or len(done) > 1
