"""Every command's --help works for a wheel installed outside a clone: it names shipped files by their
shipped names (citywright/ci), never by a path of the repository (configs/citywright/ci.yaml), which
gives "file not found" anywhere else (issue 50 item 5, retry: check, study, sweep and tune said
'see configs/citywright/...')."""

from __future__ import annotations

from typer.main import get_command
from typer.testing import CliRunner

from balancer.cli import app


def _commands() -> list[list[str]]:
    root = get_command(app)
    out = []
    for name, command in root.commands.items():
        subs = getattr(command, "commands", None)
        out += [[name, sub] for sub in subs] if subs else [[name]]
    return out


def test_no_help_names_a_path_of_the_repository():
    commands = _commands()
    assert ["check"] in commands and ["baseline", "save"] in commands and len(commands) >= 18
    runner = CliRunner()
    for words in commands:
        result = runner.invoke(app, [*words, "--help"], terminal_width=200)
        assert result.exit_code == 0, (words, result.output)
        assert "configs/" not in result.output, (words, result.output)
