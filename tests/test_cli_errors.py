"""The command line's one mapping of library errors to exit codes and messages (balancer/cli/errors.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from balancer.check.baseline import BaselineError
from balancer.cli.errors import library_errors
from balancer.config import ConfigError
from balancer.sim.runner import GamesFailedError, RunLockedError, RunRequestError
from balancer.study import StudyError


def outcome(exc: BaseException, capsys, **kwargs) -> tuple[int, str]:
    """(exit code, stderr) of a command whose library call raised ``exc``."""
    with pytest.raises(typer.Exit) as caught:
        with library_errors(interrupted="interrupted; nothing was written", **kwargs):
            raise exc
    return caught.value.exit_code, capsys.readouterr().err


@pytest.mark.parametrize(
    "exc",
    [
        ConfigError("v.yaml: board.rows: must be at least 1"),
        StudyError("s.yaml: runs.x.games: must be at least 1"),
        BaselineError("b.json: cells.0.seed: not an integer"),
        RunRequestError("--players", "must be 2-4, got 9"),
        RunLockedError(Path("results/x"), 123),
    ],
)
def test_bad_input_is_exit_2_with_the_errors_own_message(exc, capsys) -> None:
    code, err = outcome(exc, capsys)
    assert code == 2 and err.strip() == f"error: {exc}"


def test_games_that_raised_are_listed_and_exit_1(capsys) -> None:
    failure = {"game_index": 7, "seed": 99, "error": "ZeroDivisionError: boom", "replay": "balancer play v.yaml"}
    code, err = outcome(GamesFailedError(Path("results/x"), [failure], 1, 10), capsys)
    assert code == 1
    assert "1 of 10 games failed" in err and "game 7 (seed 99): ZeroDivisionError: boom" in err
    assert "replay: balancer play v.yaml" in err


def test_interrupt_says_what_was_kept_and_exits_130(capsys) -> None:
    code, err = outcome(KeyboardInterrupt(), capsys)
    assert code == 130 and err.strip() == "interrupted; nothing was written"


def test_other_write_errors_name_the_output(capsys) -> None:
    code, err = outcome(PermissionError(13, "Permission denied"), capsys, cannot_write="--out results/x")
    assert code == 2 and err.strip() == "error: --out results/x: cannot write (Permission denied)"
    # without a cannot_write prefix (issue 28): one line naming the file the error names, never a traceback;
    # a full disk while a study writes a cell is such an error
    code, err = outcome(OSError(28, "No space left on device", "results/s/c/chunks/chunk-000001.arrow.tmp"), capsys)
    assert code == 2 and err.strip() == "error: results/s/c/chunks/chunk-000001.arrow.tmp: No space left on device"
    code, err = outcome(FileNotFoundError("no results found: x/results.parquet does not exist"), capsys)
    assert code == 2 and err.strip() == "error: no results found: x/results.parquet does not exist"


@pytest.mark.parametrize(
    "args, says",
    [
        (["history", "--last", "-3", "h.duckdb"], "Invalid value for '--last'"),
        (["check", "study.yaml", "-b", "b.json", "--max-games", "0"], "Invalid value for '--max-games'"),
        (["run", "citywright/v1.1", "-n", "abc"], "Invalid value for '--games'"),
        (["run", "--bogus"], "No such option: --bogus"),
        (["baseline", "save"], "Missing argument"),
        (["--bogus"], "No such option: --bogus"),
        (["no-such-command"], "No such command"),
    ],
)
def test_a_usage_error_is_one_line_naming_the_command_s_help(args, says):
    """An option's value out of its range, an unknown option, a missing argument: one line and exit 2, like
    every other bad input (click printed the usage, a hint and the message on three lines; the new-user try
    of issue 50 met `check --max-games 0` and `history --last -3`)."""
    from typer.testing import CliRunner

    from balancer.cli import app

    result = CliRunner().invoke(app, args)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("error: ") and says in lines[0] and "--help')" in lines[0], lines[0]


def test_a_bare_group_still_shows_its_help():
    from typer.testing import CliRunner

    from balancer.cli import app

    result = CliRunner().invoke(app, ["baseline"])
    assert "Usage: balancer baseline" in result.output and "save" in result.output
