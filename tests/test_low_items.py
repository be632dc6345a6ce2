"""The low items of issue 52 (item 8, outside history), each a case that failed before its fix: a link at
a run's own file refused before any game is played; --max-games below 1 refused without --until-ci; a
key YAML read as true named as such; a study listing itself as a variant told which key; extends: of a
device named by the file and key that refer to it; U+2028/U+2029/U+0085 refused with file and line; the
hint of 'show --diff SWEEP' a command that works."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
RUN = ["run", str(V11), "-p", "2", "-a", "random", "-n", "4", "-j", "1", "-q", "--seed", "5", "--out", "r"]


def one_line(result) -> str:
    lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


@pytest.mark.parametrize("name", ["summary.json", "run.json", "results.parquet"])
def test_a_link_at_a_runs_own_file_is_refused_before_any_game(tmp_path, monkeypatch, name):
    # before: every game was played into chunks/, then the link was refused when the run was finished
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r").mkdir()
    (tmp_path / "victim.txt").write_text("precious\n")
    (tmp_path / "r" / name).symlink_to(tmp_path / "victim.txt")
    line = one_line(CliRunner().invoke(app, RUN))
    assert f"r/{name}: a symbolic link where this command writes its own file" in line
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [name]  # no chunks/, no lock: nothing played
    assert (tmp_path / "victim.txt").read_text() == "precious\n"


def test_max_games_below_one_is_refused_without_until_ci(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line(CliRunner().invoke(app, [*RUN, "--max-games", "-5"]))
    assert line == "error: --max-games: must be at least 1, got -5"
    assert not (tmp_path / "r").exists()


STUDY = """study: tiny
title: t
game: citywright
seed: 3
variants:
  {variants}
runs:
  m2: {{players: 2, agents: [random], games: 4}}
"""


def test_a_key_yaml_reads_as_true_is_named_as_written(tmp_path, monkeypatch):
    # before: "variants[1].[key]: Input should be a valid string" (true read as 1, pydantic's [key])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "st.yaml").write_text(STUDY.format(variants=f"true: {V11}"))
    line = one_line(CliRunner().invoke(app, ["study", "st.yaml", "-j", "1", "-q"]))
    assert line == 'error: st.yaml: variants: key true is a boolean, not text; write it in quotes: "true": ...'


def test_a_study_listing_itself_as_a_variant_is_told_which_key(tmp_path, monkeypatch):
    # before: "st.yaml: a study file, not a variant; run it with 'balancer study st.yaml'" (no key named)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "st.yaml").write_text(STUDY.format(variants="me: st.yaml"))
    line = one_line(CliRunner().invoke(app, ["study", "st.yaml", "-j", "1", "-q"]))
    assert line == (
        f"error: st.yaml: variants.me: {tmp_path / 'st.yaml'} is a study file (this study file), not a rule "
        "variant; give a variant config"
    )


def test_extends_of_a_device_names_the_referring_file_and_key(tmp_path, monkeypatch):
    # before: "/dev/zero: not a file" (the target, not who named it)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v.yaml").write_text("variant: x\nextends: /dev/zero\n")
    line = one_line(CliRunner().invoke(app, ["validate", "v.yaml"]))
    assert line == "error: v.yaml: extends: /dev/zero is not a file (a device, a pipe or a folder)"


@pytest.mark.parametrize(
    ("char", "name"), [("\u2028", "line separator"), ("\u2029", "paragraph separator"), ("\x85", "next line (NEL)")]
)
def test_a_line_break_an_editor_does_not_show_is_refused(tmp_path, monkeypatch, char, name):
    # before: an editor showed "# note<char>seat_bonus: ..." as one comment line; PyYAML read the key after it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v.yaml").write_text(
        f"variant: x\nextends: citywright/v1.1\n# a note{char}turns: 3\n", encoding="utf-8"
    )
    line = one_line(CliRunner().invoke(app, ["validate", "v.yaml"]))
    assert line == (  # line 3, column 9: after "# a note" (8 characters), counted by newlines as an editor does
        f"error: v.yaml:3:9: a {name} character (U+{ord(char):04X}), which YAML reads as a line break where an "
        "editor shows none (after a '#' it would end the comment); remove it"
    )


SWEEP = """sweep: sw
title: t
base: {base}
seed: 3
runs:
  m4: {{players: 4, agents: [random], games: 8}}
paths:
  seat_bonus.4[3]: {{from: 0, to: 1}}
target:
  seat_win_rate: equal
"""


def test_the_hint_for_a_sweep_given_to_show_or_its_diff_is_a_command_that_works(tmp_path, monkeypatch):
    # before: a shipped base (citywright/v1.1) was shown as sub/citywright/v1.1, and --diff SWEEP
    # suggested 'balancer show BASE', dropping the variant shown
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "sw.yaml").write_text(SWEEP.format(base="citywright/v1.1"))
    (tmp_path / "sub" / "v.yaml").write_text("variant: v\nextends: citywright/v1.1\n")
    line = one_line(CliRunner().invoke(app, ["show", "sub/sw.yaml"]))
    assert line.endswith("its base variant: balancer show citywright/v1.1")
    line = one_line(CliRunner().invoke(app, ["show", "sub/v.yaml", "--diff", "sub/sw.yaml"]))
    assert line.endswith("its base variant: balancer show sub/v.yaml --diff citywright/v1.1")
    hint = line.split("its base variant: ")[1].split()
    assert CliRunner().invoke(app, hint[1:]).exit_code == 0  # the suggested command runs


def _manifest_with_chunk_of(tmp_path: Path, chunk_seed: int) -> Path:
    """An interrupted run of seed 5 (8 games, chunks of 4) whose manifest lists chunk 0 with its checksum,
    the chunk's rows taken from a finished run of ``chunk_seed`` (games 0 to 3): a chunk copied from
    another run with its hash written into the manifest."""
    import json

    import pyarrow.parquet as pq

    from balancer.api import load_variant
    from balancer.sim.rundir import RunDir
    from balancer.sim.runner import RunRequest

    donor = tmp_path / f"donor-{chunk_seed}"
    args = ["run", str(V11), "-p", "2", "-a", "random", "-n", "4", "-j", "1", "-q", "--seed", str(chunk_seed)]
    assert CliRunner().invoke(app, [*args, "--out", str(donor)]).exit_code == 0
    table = pq.read_table(donor / "results.parquet")
    cfg, spec = load_variant(V11)
    out = tmp_path / "r"
    (out / "chunks").mkdir(parents=True)
    identity = RunRequest(spec, cfg, str(V11), ["random", "random"], 8, 5).identity()
    entry = RunDir(out).write_chunk(0, 0, 4, 5, table, [])
    manifest = {"format": 1, **identity, "chunk_size": 4, "started": "2026-12-07T00:00:00+00:00"}
    manifest |= {"elapsed_seconds": 1.0, "chunks": [entry]}
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


RESUME = ["run", str(V11), "-p", "2", "-a", "random", "-n", "8", "-j", "1", "-q", "--seed", "5", "--chunk-size", "4"]


def test_resume_refuses_a_chunk_of_another_run_listed_with_its_hash(tmp_path):
    # before: the chunk's checksum matched the manifest, so its games (of seed 6) were merged as seed 5's
    out = _manifest_with_chunk_of(tmp_path, 6)
    line = one_line(CliRunner().invoke(app, [*RESUME, "--out", str(out), "--resume"]))
    assert line == (
        f"error: --resume: {out}/chunks/chunk-000000.arrow: holds games of seed 6 (this run's is 5): not a chunk "
        "of this run; start over with --force"
    )
    assert not (out / "results.parquet").exists()


def test_resume_keeps_a_chunk_of_its_own_run(tmp_path):
    # the control: the same construction with the run's own seed resumes, playing only games 4 to 7
    out = _manifest_with_chunk_of(tmp_path, 5)
    result = CliRunner().invoke(app, [*RESUME, "--out", str(out), "--resume"])
    assert result.exit_code == 0, result.output


class _FullDisk:
    """A file whose every write fails as on a full disk: ENOSPC and no file name, as os.write raises it."""

    def __init__(self, fd: int, mode: str):
        import os

        self._f = os.fdopen(fd, mode)

    def write(self, data):
        import errno

        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


SW = SWEEP.format(base=V11)


@pytest.mark.parametrize("command", ["study", "sweep"])
def test_a_full_disk_names_the_file(tmp_path, monkeypatch, command):
    # before: "error: [Errno 28] No space left on device", no file named
    import balancer.outdir

    monkeypatch.chdir(tmp_path)
    (tmp_path / "st.yaml").write_text(STUDY.format(variants=f"v1.1: {V11}"))
    (tmp_path / "sw.yaml").write_text(SW)
    monkeypatch.setattr(balancer.outdir, "_fdopen", _FullDisk)
    args = {"study": ["study", "st.yaml"], "sweep": ["sweep", "sw.yaml"]}[command]
    result = CliRunner().invoke(app, [*args, "-j", "1", "-q", "--results", "res"])
    lines = [x for x in result.output.strip().splitlines() if x.startswith("error: ")]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].endswith(": No space left on device") and "[Errno" not in lines[0]
    named = lines[0].removeprefix("error: ").split(": ")[0].split()[-1]  # the file, after any option's words
    assert Path(named).parent.exists() and str(tmp_path / "res") in str(Path(named).resolve()), lines[0]


def test_a_link_at_a_later_cells_summary_is_refused_before_the_studys_first_game(tmp_path, monkeypatch):
    # each cell checked its own files only when its turn came: the first cell was played, then refused
    from balancer.study import load_study
    from balancer.study.runner import study_folder

    monkeypatch.chdir(tmp_path)
    (tmp_path / "st.yaml").write_text(STUDY.format(variants=f"a: {V11}\n  b: {V11}"))
    folder = study_folder(tmp_path / "st.yaml", load_study(tmp_path / "st.yaml")[0], tmp_path / "res")
    (tmp_path / "res" / folder / "m2" / "b").mkdir(parents=True)
    (tmp_path / "victim.txt").write_text("precious\n")
    (tmp_path / "res" / folder / "m2" / "b" / "summary.json").symlink_to(tmp_path / "victim.txt")
    line = one_line(CliRunner().invoke(app, ["study", "st.yaml", "-j", "1", "-q", "--results", "res"]))
    assert "m2/b/summary.json: a symbolic link where this command writes its own file" in line
    assert not (tmp_path / "res" / folder / "m2" / "a").exists()  # the first cell was not played
