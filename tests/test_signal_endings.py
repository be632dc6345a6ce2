"""A signal always ends a command with one line and exit 130 (issue 52, item 6), whatever the code it
interrupted made of the exception: swallowed it (SIGTERM inside matplotlib's import: "interrupted", then
the page written and exit 0), turned it into another error (a SystemError traceback and exit 1; DuckDB's
"RuntimeError: Query interrupted" under ``check --history``). Each is played by a stand-in command line
in a child process that runs balancer's console entry (``balancer.entry.main``) and signals itself."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# a stand-in for balancer.cli: `app` is the command, `SIGNAL` the signal it sends itself
HARNESS = textwrap.dedent(
    """
    import os, signal, sys, time, types
    import typer

    def interrupt_me(sig):
        os.kill(os.getpid(), sig)
        time.sleep(1)  # the handler runs here
        raise AssertionError("the signal was not delivered")

    {body}

    sys.modules["balancer.cli"] = types.SimpleNamespace(app=app)
    from balancer.entry import main
    main()
    """
)

BODIES = {
    # the handler's SystemExit swallowed (an import's `except BaseException`, a __del__): the command
    # goes on and ends normally, as the report did when it wrote the page and exited 0
    "swallowed": """
def app(prog_name):
    try:
        interrupt_me(signal.SIGTERM)
    except BaseException:
        pass
    print("page written")
""",
    # the handler's SystemExit turned into another error (a C extension's initialisation: SystemError)
    "turned": """
def app(prog_name):
    try:
        interrupt_me(signal.SIGTERM)
    except BaseException as exc:
        raise SystemError("initialization of _c_module raised unreported exception") from exc
""",
    # check --history: Ctrl-C under library_errors, turned by DuckDB into its own RuntimeError
    "duckdb": """
from balancer.cli.errors import library_errors

def app(prog_name):
    with library_errors(interrupted="interrupted; nothing was added to the history"):
        try:
            interrupt_me(signal.SIGINT)
        except KeyboardInterrupt:
            raise RuntimeError("Query interrupted") from None
""",
    # the same with SIGTERM, which check takes as a Ctrl-C while it plays (_sigterm_as_interrupt)
    "duckdb-sigterm": """
from balancer.cli.app import _sigterm_as_interrupt
from balancer.cli.errors import library_errors

def app(prog_name):
    with library_errors(interrupted="interrupted; nothing was written"), _sigterm_as_interrupt():
        try:
            interrupt_me(signal.SIGTERM)
        except KeyboardInterrupt:
            raise RuntimeError("Query interrupted") from None
""",
}


def play(case: str) -> subprocess.CompletedProcess[str]:
    code = HARNESS.format(body=BODIES[case])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_a_swallowed_signal_still_ends_with_130_and_one_line():
    done = play("swallowed")
    assert done.returncode == 130, done  # before: 0
    assert done.stderr == "interrupted\n", done.stderr  # the handler's line, once


def test_a_signal_turned_into_another_error_ends_with_130_and_no_traceback():
    done = play("turned")
    assert done.returncode == 130, done  # before: 1, a SystemError traceback
    assert done.stderr == "interrupted\n", done.stderr


def test_a_ctrl_c_a_library_turned_into_its_own_error_is_the_commands_interrupt():
    done = play("duckdb")
    assert done.returncode == 130, done  # before: 1, RuntimeError: Query interrupted
    assert done.stderr == "interrupted; nothing was added to the history\n", done.stderr


def test_a_sigterm_a_library_turned_into_its_own_error_is_the_commands_interrupt():
    done = play("duckdb-sigterm")
    assert done.returncode == 130, done  # before: 1, RuntimeError: Query interrupted
    assert done.stderr == "interrupted; nothing was written\n", done.stderr
