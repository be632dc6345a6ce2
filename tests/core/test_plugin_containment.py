"""Plugins that fail are contained (issue 52, item 4): another package's game or generic agent that raises
SystemExit or KeyboardInterrupt, calls os._exit, sleeps or prints at import is listed as not available
with the reason; every other game and agent keeps working, nothing it prints reaches a command's output,
and a real Ctrl-C still stops the command with exit 130.

Each fake plugin is a module in a temporary folder on sys.path (and PYTHONPATH, for the child process
that tries it first), registered by monkeypatching the registry (games) or the entry points (agents); the
subprocess tests install them as a distribution (a ``*.dist-info`` folder with ``entry_points.txt``)."""

from __future__ import annotations

import importlib.metadata
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.core import generic_agents as ga
from balancer.core import plugins, registry

ROOT = Path(__file__).resolve().parents[2]

# what each fake plugin's module does at import; the sleeper sleeps far longer than the bound the tests set
BODIES = {
    "exits": "raise SystemExit(3)\n",
    "interrupts": "raise KeyboardInterrupt\n",
    "ends": "import os\nos._exit(0)\n",
    "sleeps": "import time\ntime.sleep(120)\n",
    "prints": "import os, sys\nprint('PRINTED-AT-IMPORT')\nos.write(1, b'WRITTEN-TO-FD-1\\n')\n"
    "print('STDERR-AT-IMPORT', file=sys.stderr)\n",
}
# the reason balancer gives for each: derived from what the module does (the exception's type and
# text; os._exit(0): an exit status 0 with nothing said; the sleeper: the bound of 2 s set below)
REASONS = {
    "exits": "failed to import: SystemExit: 3",
    "interrupts": "failed to import: KeyboardInterrupt",
    "ends": "failed to import: ended the process at import (os._exit or a crash, exit status 0)",
    "sleeps": "failed to import: import took more than 2 s",
}
BOUND = "2"


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A folder of fake plugin modules (``fake_<case>_<kind>``) on sys.path and PYTHONPATH; the
    import bound 2 s; what was probed and imported forgotten afterwards."""
    for case, body in BODIES.items():
        for kind in ("game", "agent"):
            (tmp_path / f"fake_{case}_{kind}.py").write_text(body + "AGENT = None\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("BALANCER_PLUGIN_IMPORT_SECONDS", BOUND)
    monkeypatch.delenv(plugins.PROBED_ENV, raising=False)
    monkeypatch.setattr(plugins, "_FAILED", {})
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("fake_")]:
        sys.modules.pop(name, None)


def test_a_game_that_exits_interrupts_ends_sleeps_or_prints_at_import_is_listed_not_available(
    plugin_dir, monkeypatch, capfd
):
    for case in BODIES:
        monkeypatch.setitem(registry.GAMES, f"fake_{case}", f"fake_{case}_game")
        monkeypatch.setitem(registry.GAME_ORIGINS, f"fake_{case}", f"entry point 'fake_{case} = fake_{case}_game'")
    started = time.monotonic()
    result = CliRunner().invoke(app, ["games"])
    took = time.monotonic() - started
    out, err = capfd.readouterr()
    assert result.exit_code == 0, result.output
    listing = " ".join(result.output.split())  # long lines are wrapped
    for case, reason in REASONS.items():
        said = (
            f"fake_{case}: not available (game 'fake_{case}' (entry point 'fake_{case} = fake_{case}_game') {reason})"
        )
        assert said in listing, listing
    # the printer imports (its probe passed) but is no game (no SPEC): listed so, its output nowhere
    assert "fake_prints: not available" in result.output
    for printed in ("PRINTED-AT-IMPORT", "WRITTEN-TO-FD-1", "STDERR-AT-IMPORT"):
        assert printed not in result.output + out + err
    # the listing went on: balancer's games after the broken ones (sorted: fake_* come first)
    assert "urgency  agents:" in result.output and "citywright  agents:" in result.output
    assert took < 60, took  # the sleeper's 120 s were not waited for


def test_an_agent_that_exits_interrupts_ends_sleeps_or_prints_at_import_is_left_out_and_said(
    plugin_dir, monkeypatch, capfd
):
    real = list(ga.entry_points(group=ga.ENTRY_POINTS))
    fakes = [
        importlib.metadata.EntryPoint(f"fake_{case}", f"fake_{case}_agent:AGENT", ga.ENTRY_POINTS) for case in BODIES
    ]
    monkeypatch.setattr(ga, "entry_points", lambda group: [*real, *fakes])
    monkeypatch.setattr(ga, "AGENT_PROBLEMS", {})
    ga.generic_agents.cache_clear()
    try:
        agents = ga.generic_agents()
        problems = dict(ga.AGENT_PROBLEMS)
    finally:
        ga.generic_agents.cache_clear()
    out, err = capfd.readouterr()
    assert [a.name for a in agents] == ["mcts"]  # balancer's own agent still seated
    for case, reason in REASONS.items():
        assert reason in problems[f"fake_{case}"], problems
    assert problems["fake_prints"].endswith("not the GenericAgent named 'fake_prints'")  # imported: AGENT is None
    for printed in ("PRINTED-AT-IMPORT", "WRITTEN-TO-FD-1", "STDERR-AT-IMPORT"):
        assert printed not in out + err


def test_an_exit_or_interrupt_raised_in_process_is_contained():
    """The second fence alone (a plugin that passed its probe, then misbehaved): contained() turns what
    the import raises, SystemExit and KeyboardInterrupt included, into PluginImportError."""

    def raising(exc: BaseException):
        def load():
            raise exc

        return load

    with pytest.raises(plugins.PluginImportError, match=r"^SystemExit: 4$"):
        plugins.contained(raising(SystemExit(4)))
    with pytest.raises(plugins.PluginImportError, match=r"^KeyboardInterrupt$"):
        plugins.contained(raising(KeyboardInterrupt()))
    assert plugins.contained(lambda: 7) == 7


def _install(folder: Path, group: str, entries: dict[str, str]) -> dict[str, str]:
    """A distribution ``fake-plugins`` in ``folder`` registering ``entries`` in ``group``; the
    environment of a balancer process that sees it."""
    info = folder / "fake_plugins-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-plugins\nVersion: 0.1\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}", encoding="utf-8")
    return {**os.environ, "PYTHONPATH": str(folder), "BALANCER_PLUGIN_IMPORT_SECONDS": "60"}


@pytest.mark.slow
def test_a_real_ctrl_c_while_a_plugin_is_tried_stops_the_command_with_130(plugin_dir):
    env = _install(plugin_dir, "balancer.games", {"fake_sleeps": "fake_sleeps_game"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "balancer", "games"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    probes: list[psutil.Process] = []
    while time.monotonic() < deadline and not probes and proc.poll() is None:
        probes = psutil.Process(proc.pid).children()
        time.sleep(0.05)
    assert probes, "balancer games never tried the plugin"
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole group, the probe included
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert err.strip() == "interrupted" and "Traceback" not in err, err
    gone, alive = psutil.wait_procs(probes, timeout=5)
    assert not alive


@pytest.mark.slow
def test_run_is_not_affected_by_broken_outside_agents(plugin_dir, tmp_path):
    env = _install(
        plugin_dir,
        "balancer.agents",
        {"fake_exits": "fake_exits_agent:AGENT", "fake_ends": "fake_ends_agent:AGENT"},
    )
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "balancer", "run", "citywright/v1.1", "-n", "10", "-j", "1", "--out", str(out), "-q"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # before: exit 4 (SystemExit), or 0 with nothing written
    assert (out / "results.parquet").is_file() and not done.stderr, done.stderr
