"""No silent overwrite (issue 52, item 1): a command's single output file (a page, --junit, --markdown, a
baseline) is never one of its inputs, never a FIFO, device or directory (not even opened), and never a
file balancer did not write unless --force; a page balancer wrote is replaced. Every refusal here comes
before any game is played: one line, exit 2, the file unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.outdir import (
    ForeignOutputError,
    UnsafeOutputError,
    check_output_target,
    written_by_balancer,
)

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
V10 = ROOT / "configs" / "citywright" / "v1.0.yaml"
RUN = ["run", str(V11), "-p", "2", "-a", "random", "-n", "4", "-j", "1", "-q", "--seed", "5", "--out", "r"]
STUDY = f"""study: tiny
title: t
game: citywright
seed: 3
variants:
  v1.1: {V11}
runs:
  m2: {{players: 2, agents: [random], games: 40}}
check:
  tolerance: {{win_rate: 0.05, metric_sd: 0.15}}
  false_alarm: 0.01
  miss_rate: 0.1
  looks: 1
"""
SWEEP = f"""sweep: sw
title: t
base: {V11}
seed: 3
runs:
  m4: {{players: 4, agents: [random], games: 8}}
paths:
  seat_bonus.4[3]: {{from: 0, to: 1}}
target:
  seat_win_rate: equal
"""
TUNE = f"""tune: tu
title: t
base: {V11}
seed: 3
runs:
  m4: {{players: 4, agents: [random], games: 8}}
space:
  seat_bonus.4[3]: {{int: [0, 1]}}
objective:
  seat_win_rate: equal
search: {{sampler: grid, rungs: 1, eta: 3}}
budget: {{games: 80}}
confirm: {{half_width: 0.3}}
response: {{steps: 1}}
"""
MINE = "<!doctype html><html><body>my own notes</body></html>\n"
"""A hand-written page: an HTML page, but without balancer's generator mark."""


def refused(result) -> str:
    """The one error line of a refusal (exit 2); a compile note is not part of it."""
    lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in (("st.yaml", STUDY), ("sw.yaml", SWEEP), ("tu.yaml", TUNE)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


# --------------------------------------------------------------------------------------------------
# an input of the same command (each of these replaced the input, exit 0, before the fix)


def test_study_refuses_its_own_study_file_as_its_page(sandbox):
    before = (sandbox / "st.yaml").read_bytes()
    line = refused(CliRunner().invoke(app, ["study", "st.yaml", "-o", "st.yaml", "-j", "1", "-q", "--results", "res"]))
    assert "st.yaml: is also an input of this command" in line
    assert (sandbox / "st.yaml").read_bytes() == before
    assert not (sandbox / "res").exists()  # refused before any cell was played


@pytest.mark.parametrize("flag", ["--junit", "--markdown"])
def test_check_refuses_its_baseline_or_study_as_junit_or_markdown(sandbox, flag):
    save = ["baseline", "save", "st.yaml", "-o", "base.json", "-j", "1", "-q", "--results", "res"]
    assert CliRunner().invoke(app, save).exit_code == 0
    before = (sandbox / "base.json").read_bytes()
    check = ["check", "st.yaml", "--baseline", "base.json", "--max-games", "40", "--allow-underpowered", "-j", "1"]
    for target in ("base.json", "st.yaml"):
        line = refused(CliRunner().invoke(app, [*check, flag, target, "--force"]))  # --force does not change it
        assert f"{flag} {target}: is also an input of this command" in line
    assert (sandbox / "base.json").read_bytes() == before


@pytest.mark.parametrize("own", ["results.parquet", "summary.json", "run.json"])
def test_report_refuses_a_file_of_the_run_it_reads(sandbox, own):
    assert CliRunner().invoke(app, RUN).exit_code == 0
    if own == "summary.json":
        (sandbox / "r" / own).unlink(missing_ok=True)  # not there yet: still the run's own name
    before = {p.name: p.read_bytes() for p in (sandbox / "r").iterdir() if p.is_file()}
    line = refused(CliRunner().invoke(app, ["report", "r", "-o", f"r/{own}", "--force"]))
    assert f"r/{own}: is also an input of this command" in line
    assert {p.name: p.read_bytes() for p in (sandbox / "r").iterdir() if p.is_file()} == before


# --------------------------------------------------------------------------------------------------
# a file balancer did not write: --force; a page it wrote: replaced


COMMANDS = {
    "study": ["study", "st.yaml", "-j", "1", "-q", "--results", "res", "-o"],
    "sweep": ["sweep", "sw.yaml", "-j", "1", "--results", "res", "-o"],
    "tune": ["tune", "tu.yaml", "-j", "1", "--results", "res", "-o"],
    "compare": ["compare", str(V11), str(V10), "-p", "2", "-a", "random", "-n", "2", "-j", "1", "-q", "--report"],
    "report": ["report", "r", "-o"],
    "pairs": ["pairs", "r", "--label", "x", "-o"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_hand_written_page_is_not_replaced_without_force(sandbox, command):
    if command in ("report", "pairs"):
        assert CliRunner().invoke(app, RUN).exit_code == 0
    (sandbox / "mine.html").write_text(MINE)
    line = refused(CliRunner().invoke(app, [*COMMANDS[command], "mine.html"]))
    flag = "--report" if command == "compare" else "--out"
    assert line == (
        f"error: {flag} mine.html: exists and was not written by balancer (it has no generator mark); "
        f"use --force to replace it, or choose another {flag}"
    )
    assert (sandbox / "mine.html").read_text() == MINE
    assert not (sandbox / "res").exists()  # before anything was played


def test_check_junit_and_markdown_of_the_user_need_force_and_its_own_are_replaced(sandbox):
    save = ["baseline", "save", "st.yaml", "-o", "base.json", "-j", "1", "-q", "--results", "res"]
    assert CliRunner().invoke(app, save).exit_code == 0
    check = ["check", "st.yaml", "--baseline", "base.json", "--max-games", "40", "--allow-underpowered", "-j", "1"]
    check += ["-q", "--junit", "j.xml", "--markdown", "m.md"]
    (sandbox / "j.xml").write_text("<mine/>\n")
    (sandbox / "m.md").write_text("# my notes\n")
    line = refused(CliRunner().invoke(app, check))
    assert line.startswith("error: --junit j.xml: exists and was not written by balancer")
    assert (sandbox / "j.xml").read_text() == "<mine/>\n"
    result = CliRunner().invoke(app, [*check, "--force"])
    assert result.exit_code in (0, 1), result.output
    assert written_by_balancer(sandbox / "j.xml") and written_by_balancer(sandbox / "m.md")
    result = CliRunner().invoke(app, check)  # the files balancer wrote: replaced without --force
    assert result.exit_code in (0, 1), result.output


def test_a_page_balancer_wrote_is_replaced_and_a_hand_written_one_with_force(sandbox):
    runner = CliRunner()
    assert runner.invoke(app, RUN).exit_code == 0
    (sandbox / "mine.html").write_text(MINE)
    assert runner.invoke(app, ["report", "r", "-o", "mine.html", "--force"]).exit_code == 0
    assert written_by_balancer(sandbox / "mine.html")
    assert runner.invoke(app, ["report", "r", "-o", "mine.html"]).exit_code == 0  # its own page now
    (sandbox / "empty.html").write_text("")  # an empty file holds nothing to lose
    assert runner.invoke(app, ["report", "r", "-o", "empty.html"]).exit_code == 0


# --------------------------------------------------------------------------------------------------
# a FIFO, a device, a directory: refused without opening


@pytest.mark.timeout(120)
def test_report_to_a_fifo_is_refused_without_opening_it(sandbox):
    # before the fix 'report r -o FIFO' opened the FIFO to read an earlier page's mark, and hung; a
    # separate process, so that a hang fails the test (timeout) instead of blocking the session
    assert CliRunner().invoke(app, RUN).exit_code == 0
    os.mkfifo(sandbox / "fifo")
    done = subprocess.run(
        [sys.executable, "-m", "balancer", "report", "r", "-o", "fifo"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=sandbox,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: --out fifo: not a regular file"), done.stderr


def test_check_output_target_by_kind(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to("/dev/zero")
    for name, words in (("fifo", "not a regular file"), ("dir", "is a directory"), ("link", "a symbolic link")):
        with pytest.raises(UnsafeOutputError, match=words):
            check_output_target(tmp_path / name, force=True)
    with pytest.raises(UnsafeOutputError, match="not a regular file"):
        check_output_target("/dev/null", force=True)
    (tmp_path / "x.md").write_text("mine\n")
    with pytest.raises(ForeignOutputError, match="use force=True"):  # the library's spelling
        check_output_target(tmp_path / "x.md")
    check_output_target(tmp_path / "x.md", force=True)
    (tmp_path / "y.md").write_text("| a |\n<!-- generator: balancer -->\n")
    check_output_target(tmp_path / "y.md")
    check_output_target(tmp_path / "missing.html")
    assert not written_by_balancer(tmp_path / "fifo")  # not opened: it would block


@pytest.mark.timeout(30)
def test_the_library_never_opens_a_fifo_at_the_page_it_replaces(tmp_path):
    # write_report reads an existing page's record (naming.page_source) before checking the target:
    # open() of a FIFO nobody writes to blocked there for ever; now it is not opened
    from balancer.naming import page_source

    os.mkfifo(tmp_path / "fifo")
    assert page_source(tmp_path / "fifo") is None


def test_a_variant_file_of_the_study_or_sweep_is_refused_as_its_page_even_with_force(sandbox):
    # the study's variant file and the sweep's base are inputs too: --force would have replaced them
    (sandbox / "v.yaml").write_text("variant: mine\nextends: citywright/v1.1\n")
    (sandbox / "st2.yaml").write_text(STUDY.replace(str(V11), "v.yaml"))
    (sandbox / "sw2.yaml").write_text(SWEEP.replace(str(V11), "v.yaml"))
    before = (sandbox / "v.yaml").read_text()
    for args in (["study", "st2.yaml", "-q"], ["sweep", "sw2.yaml"]):
        line = refused(CliRunner().invoke(app, [*args, "-j", "1", "--results", "res", "-o", "v.yaml", "--force"]))
        assert "v.yaml: is also an input of this command" in line
    assert (sandbox / "v.yaml").read_text() == before


def test_a_cell_file_of_the_study_or_sweep_is_refused_as_its_page_even_with_force(sandbox):
    """A cell's own files (results/<folder>/<run>/<variant>/summary.json, ...) are the inputs of the
    page: refused as --out even with --force, which the refusal without it had suggested (the hostile
    pass of issue 52, h9: 'sweep sw.yaml -o <cell>/summary.json --force' replaced the cell's summary with
    the page, exit 0). A page balancer wrote inside the results folder is still replaced."""
    for args in (["study", "st.yaml", "-q"], ["sweep", "sw.yaml", "-q"]):
        first = CliRunner().invoke(app, [*args, "-j", "1", "--results", "res", "-o", "page.html"])
        assert first.exit_code == 0, first.output
    cells = sorted((sandbox / "res").glob("*/*/*/summary.json"))
    assert len(cells) == 3  # the study's one cell and the sweep's two points
    for cell in cells:
        args = ["study", "st.yaml", "-q"] if "tiny" in str(cell) else ["sweep", "sw.yaml", "-q"]
        before = cell.read_bytes()
        target = str(cell.relative_to(sandbox))
        line = refused(CliRunner().invoke(app, [*args, "-j", "1", "--results", "res", "-o", target, "--force"]))
        assert "is also an input of this command" in line, line
        assert cell.read_bytes() == before
    again = CliRunner().invoke(app, ["sweep", "sw.yaml", "-q", "-j", "1", "--results", "res", "-o", "res/page.html"])
    assert again.exit_code == 0, again.output
    again = CliRunner().invoke(app, ["sweep", "sw.yaml", "-q", "-j", "1", "--results", "res", "-o", "res/page.html"])
    assert again.exit_code == 0, again.output  # balancer's own page below the results folder: replaced


def test_compare_refuses_a_further_variant_or_a_run_file_as_its_page_even_with_force(sandbox):
    """compare A B MORE...: a further variant file is an input like A and B, and so are both runs' files
    under --out; --force (play again) had replaced either with the page, exit 0 (hostile pass of issue
    52, h9: 'compare a b c.yaml --report c.yaml --force' turned the user's c.yaml into HTML)."""
    (sandbox / "v.yaml").write_text("variant: mine\nextends: citywright/v1.1\n")
    before = (sandbox / "v.yaml").read_bytes()
    base = ["compare", str(V11), str(V10), "v.yaml", "-p", "2", "-a", "random", "-n", "4", "-j", "1", "-q"]
    line = refused(CliRunner().invoke(app, [*base, "-o", "c", "--report", "v.yaml", "--force"]))
    assert "v.yaml: is also an input of this command" in line
    assert (sandbox / "v.yaml").read_bytes() == before
    first = CliRunner().invoke(app, [*base, "-o", "c", "--report", "c.html"])
    assert first.exit_code == 0, first.output
    own = sorted((sandbox / "c").glob("*/summary.json")) + [sandbox / "c" / "comparison.json"]
    assert len(own) == 4  # three variants' runs and the comparison
    for path in own:
        kept = path.read_bytes()
        target = str(path.relative_to(sandbox))
        line = refused(CliRunner().invoke(app, [*base, "-o", "c", "--report", target, "--force"]))
        assert "is also an input of this command" in line, line
        assert path.read_bytes() == kept


def test_ladder_refuses_a_file_of_its_cells_as_its_page_even_with_force(sandbox):
    """The ladder's folder (--results DIR/<name>/: its ladder.yaml and every cell's files) is its page's
    input; --force had replaced ladder.yaml with the page, exit 0 (hostile pass of issue 52, h9)."""
    base = ["ladder", str(V11), "-a", "random,greedy", "-p", "2", "-n", "4", "--name", "lad", "--results", "res"]
    base += ["-j", "1", "--no-matchups"]
    first = CliRunner().invoke(app, [*base, "-o", "lad.html"])
    assert first.exit_code == 0, first.output
    own = [sandbox / "res" / "lad" / "ladder.yaml", *sorted((sandbox / "res" / "lad").glob("*/*/summary.json"))]
    assert len(own) == 3  # ladder.yaml and the two rungs' cells
    for path in own:
        kept = path.read_bytes()
        line = refused(CliRunner().invoke(app, [*base, "-o", str(path.relative_to(sandbox)), "--force"]))
        assert "is also an input of this command" in line, line
        assert path.read_bytes() == kept


# --------------------------------------------------------------------------------------------------
# a run's own files in a folder of the user's (the hardening pass: 'run ... --out bad/mine-notes'
# replaced the user's summary.json, run.json and trajectories.parquet there, exit 0: only a
# results.parquet was refused)


@pytest.mark.parametrize("name", ["summary.json", "run.json", "trajectories.parquet"])
def test_run_refuses_a_users_file_in_a_folder_that_is_no_run_folder(sandbox, name):
    """A folder with the user's own file of a run's name and no results.parquet, manifest.json or run.json
    of balancer's: one line naming the file, exit 2, before any game: the folder is as it was. With
    --force (run's documented 'overwrite what is in the output directory') the run replaces it."""
    notes = sandbox / "r"
    notes.mkdir()
    (notes / name).write_text("my notes\n", encoding="utf-8")
    line = refused(CliRunner().invoke(app, RUN))
    assert f"{name}: exists and was not written by balancer" in line and "--force" in line, line
    assert [p.name for p in notes.iterdir()] == [name] and (notes / name).read_text(encoding="utf-8") == "my notes\n"
    result = CliRunner().invoke(app, [*RUN, "--force"])
    assert result.exit_code == 0, result.output
    assert (notes / "results.parquet").is_file() and (notes / name).read_bytes() != b"my notes\n"


def test_run_writes_again_into_a_run_folder_of_its_own(sandbox):
    """A folder whose run.json is balancer's (a finished run whose results.parquet was removed) is the
    run's own: run writes into it without --force, as before the refusal above existed."""
    assert CliRunner().invoke(app, RUN).exit_code == 0
    (sandbox / "r" / "results.parquet").unlink()
    result = CliRunner().invoke(app, RUN)
    assert result.exit_code == 0, result.output
    assert (sandbox / "r" / "results.parquet").is_file()
