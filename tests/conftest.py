"""Shared fixtures: the Citywright rule variants, loaded once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

# the shipped conformance suite's asserts show their values, as the tests' own do (before it is imported)
pytest.register_assert_rewrite("balancer.testing")

from wheel_env import installed  # noqa: E402,F401  (the wheel, built once per session: tests/wheel_env.py)

from balancer.config import load_config  # noqa: E402
from balancer.games.citywright.config import CitywrightConfig  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _only_balancers_own_games() -> None:
    """The suite checks balancer's own four games: a game another distribution installed into this
    environment registers (the example, after `pip install -e examples/pig`) is checked by its own tests
    and by tests/test_example_game.py, not by the suites parametrized over the registry."""
    from balancer.core import registry

    for name, module in list(registry.GAMES.items()):
        if not module.startswith("balancer.games."):
            del registry.GAMES[name]


_only_balancers_own_games()
CONFIGS = ROOT / "configs" / "citywright"
DATA = Path(__file__).resolve().parent / "data"


def load_citywright(name: str) -> CitywrightConfig:
    """Load ``configs/citywright/<name>`` with the project's loader (``extends:`` resolved)."""
    cfg = load_config(CONFIGS / name)
    assert isinstance(cfg, CitywrightConfig)
    return cfg


@pytest.fixture(scope="session")
def cw_cfg() -> CitywrightConfig:
    """Citywright v1.1, the rulebook as printed."""
    return load_citywright("v1.1.yaml")


@pytest.fixture(scope="session")
def cw_cfg_v10() -> CitywrightConfig:
    """Citywright v1.0, rebuilt from the v1.1 appendix (extends v1.1)."""
    return load_citywright("v1.0.yaml")


@pytest.fixture(scope="session")
def cw_data() -> Path:
    """Directory of the hand-scored Citywright tables."""
    return DATA / "citywright"


@pytest.fixture
def one_error_line():
    """A checker for a refused CLI command (CliRunner result): exit 2, exactly one output line
    starting ``error: `` (no traceback; a ``note: compiling ...`` line, printed when the engine is not
    in numba's cache yet, is not part of the refusal); returns that line."""

    def check(result) -> str:
        assert result.exit_code == 2, result.output
        lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.output
        return lines[0]

    return check


def _fuzz_counts() -> dict:
    """(kind, outcome) -> fuzz cases run in this process (tests/test_fuzz_inputs.py), {} if none ran."""
    import sys

    module = next((m for name, m in sys.modules.items() if name.endswith("test_fuzz_inputs")), None)
    return dict(getattr(module, "FUZZ_COUNTS", {}) or {})


_WORKER_FUZZ: dict = {}

WARM_GROUPS = (("citywright", "urgency"), ("urban_sketchers", "agueda"))
"""The games whose numba caches tests/warm_caches.py fills before xdist's workers start, one
process per group, the groups about equal in compile time. On a fresh clone (3 Dec 2026, CPU s, two
processes on the 2 cores; ``BALANCER_WARM_TIMES=1 python tests/warm_caches.py GAME``): the engine
with its table of greedy seats, then the MCTS search with the game's own agents: Citywright 173 +
268, Urban Sketchers 143 + 137, Águeda 113 + 153, Urgency 60 + 30 (rounded): about 530 and 545 CPU s
for the two groups (1,275 CPU s in all before the table with a search seat became a Python loop,
1,075 after; both on an afternoon when the machine ran at about 0.67 of its usual speed)."""


def pytest_configure(config):
    """Under pytest-xdist, in the controller before the workers start: fill numba's cache once per
    game in parallel processes (tests/warm_caches.py), so that the workers load each engine, table
    loop and MCTS search instead of compiling the same ones at the same moment."""
    import os
    import subprocess
    import sys
    import time

    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    start = time.perf_counter()
    script = Path(__file__).resolve().parent / "warm_caches.py"
    procs = [subprocess.Popen([sys.executable, str(script), *group], env=os.environ.copy()) for group in WARM_GROUPS]
    codes = [proc.wait() for proc in procs]
    sys.stderr.write(
        f"numba's cache filled for {sum(map(len, WARM_GROUPS))} games in {time.perf_counter() - start:.0f} s"
        + (f" (exit codes {codes}: the tests will say what failed)" if any(codes) else "")
        + "\n"
    )


def pytest_sessionfinish(session):
    """Under pytest-xdist, a worker hands its fuzz counts to the controller."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fuzz_counts"] = [[k, o, n] for (k, o), n in _fuzz_counts().items()]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for kind, outcome, n in getattr(node, "workeroutput", {}).get("fuzz_counts", []):
        _WORKER_FUZZ[(kind, outcome)] = _WORKER_FUZZ.get((kind, outcome), 0) + n


def pytest_terminal_summary(terminalreporter):
    """After the tests: how many fuzz cases ran, by file kind and outcome."""
    counts = _fuzz_counts()
    for key, n in _WORKER_FUZZ.items():
        counts[key] = counts.get(key, 0) + n
    if counts:
        kinds = sorted({k for k, _ in counts})
        parts = [f"{k}: " + ", ".join(f"{n} {o}" for (kk, o), n in sorted(counts.items()) if kk == k) for k in kinds]
        terminalreporter.write_line(f"fuzz cases: {sum(counts.values())} ({'; '.join(parts)})")


@pytest.fixture(autouse=True, scope="session")
def _warmup_store_in_tmp(tmp_path_factory):
    """The durations of warm-ups (balancer.sim.warmup) go to a folder of the session, not the user's
    cache directory (also for the command lines the tests start: they inherit the environment)."""
    import os

    before = os.environ.get("BALANCER_CACHE_DIR")
    os.environ["BALANCER_CACHE_DIR"] = str(tmp_path_factory.mktemp("balancer-cache"))
    yield
    if before is None:
        os.environ.pop("BALANCER_CACHE_DIR", None)
    else:
        os.environ["BALANCER_CACHE_DIR"] = before
