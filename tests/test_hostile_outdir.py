"""The output directory as a trust boundary (issue 28, item 1), table-driven: for every name a run writes
or deletes in its directory, a symbolic link planted there (pointing at a file or a folder outside), a
foreign file in ``chunks/``, and empty and ``..`` paths. The whole sandbox is listed (names, kinds,
contents) before and after: nothing outside the output directory changes, nothing that the run did not
create is deleted, and a refusal is one line naming the file, exit 2."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer.cli import app
from balancer.outdir import UnsafeOutputError, clear_own_files, normalised, write_atomic
from balancer.sim.rundir import OWN_CHUNK_FILE

ROOT = Path(__file__).resolve().parents[1]
V11 = ROOT / "configs" / "citywright" / "v1.1.yaml"
RUN = ["run", str(V11), "-p", "2", "-a", "random", "-n", "4", "-j", "1", "-q", "--seed", "5"]


def listing(folder: Path) -> dict[str, str]:
    """Every path under ``folder`` -> its kind and content: ``link -> target``, ``dir``, or the sha256."""
    out = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            out[name] = f"link -> {os.readlink(path)}"
        elif path.is_dir():
            out[name] = "dir"
        else:
            out[name] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return out


@dataclass(frozen=True)
class Case:
    """``plant(out, outside)`` prepares the output directory; ``args`` are added to the run's;
    ``refused``: the word the one error line holds (None: the run succeeds)."""

    name: str
    plant: Callable[[Path, Path], None]
    refused: str | None
    args: list[str] = field(default_factory=list)


def link(name: str, to: str = "victim.txt") -> Callable[[Path, Path], None]:
    def plant(out: Path, outside: Path) -> None:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(outside / to)

    return plant


def foreign_chunk_file(out: Path, outside: Path) -> None:
    (out / "chunks").mkdir(parents=True)
    (out / "chunks" / "notes.txt").write_text("the user's own notes\n")


CASES = [
    Case("run.lock -> outside", link("run.lock"), "run.lock: a symbolic link"),
    Case("manifest.json -> outside (--force)", link("manifest.json"), "manifest.json: a symbolic link", ["--force"]),
    Case("summary.json -> outside", link("summary.json"), "summary.json: a symbolic link"),
    Case("run.json -> outside", link("run.json"), "run.json: a symbolic link"),
    Case(
        "results.parquet -> outside (--force)", link("results.parquet"), "results.parquet: a symbolic link", ["--force"]
    ),  # fmt: skip
    Case("chunks -> outside folder", link("chunks", "folder"), "chunks: a symbolic link"),
    Case("chunks/chunk-000000.arrow.tmp -> outside", link("chunks/chunk-000000.arrow.tmp"), "not a file of this run"),
    Case("a foreign file in chunks/", foreign_chunk_file, "chunks/notes.txt: not a file of this run"),
    # the temporary names of earlier versions are no longer written: links there are neither followed nor removed
    Case("manifest.json.tmp -> outside", link("manifest.json.tmp"), None),
    Case("summary.json.tmp -> outside", link("summary.json.tmp"), None),
    Case("results.parquet.tmp -> outside", link("results.parquet.tmp"), None),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_planted_link_or_foreign_file_is_never_followed_or_deleted(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "victim.txt").write_text("precious\n")
    (outside / "folder" / "keep.txt").write_text("also precious\n")
    out = tmp_path / "out"
    out.mkdir()
    case.plant(out, outside)
    before = listing(tmp_path)
    planted = {k: v for k, v in before.items() if k.startswith("out/")}
    result = CliRunner().invoke(app, [*RUN, "--out", str(out), *case.args])
    after = listing(tmp_path)
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    # nothing outside the output directory changed
    assert {k: v for k, v in after.items() if not k.startswith("out/") and k != "out"} == {
        k: v for k, v in before.items() if not k.startswith("out/") and k != "out"
    }
    # nothing planted in it was deleted or changed
    assert all(after.get(k) == v for k, v in planted.items()), (planted, after)
    lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
    if case.refused is None:
        assert result.exit_code == 0, result.output
        assert (out / "results.parquet").is_file() and not (out / "results.parquet").is_symlink()
    else:
        assert result.exit_code == 2, result.output
        assert len(lines) == 1 and lines[0].startswith("error: ") and case.refused in lines[0], result.output


@pytest.mark.parametrize(
    ("out", "exit_code", "created"),
    [
        ("", 2, []),  # '' is the current directory: refused, nothing written there
        (".", 2, []),
        ("out/a/../../out/X", 0, ["out", "out/X"]),  # normalised first: no out/a is created
        ("out//Y/./", 0, ["out", "out/Y"]),
    ],
)
def test_empty_and_dotted_output_paths(tmp_path, monkeypatch, out, exit_code, created):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [*RUN, "--out", out])
    assert result.exit_code == exit_code, result.output
    dirs = sorted(k for k, v in listing(tmp_path).items() if v == "dir")
    assert dirs == created
    if exit_code == 2:
        assert result.output.startswith("error: --out: is the current directory") and listing(tmp_path) == {}


@pytest.mark.parametrize("out", ["..", "../..", "/", "{cwd}", "{cwd}/sub/.."])
def test_the_current_directory_and_its_parents_are_refused_for_run_and_compare(tmp_path, monkeypatch, out):
    # review of issue 28: 'run -o ..' wrote results.parquet, run.json and summary.json into the parent
    # directory and 'run -o /' into the file-system root; each is the current directory or one of its
    # parents (tmp_path/cwd/.. is tmp_path), so each is refused before anything is written anywhere
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    out = out.format(cwd=cwd)
    for args in (RUN, ["compare", str(V11), str(V11), "-p", "2", "-a", "random", "-n", "2", "-j", "1", "-q"]):
        before = listing(tmp_path)
        result = CliRunner().invoke(app, [*args, "--out", out])
        assert result.exit_code == 2, result.output
        assert result.output.startswith(f"error: --out: {out!r} is the current directory or one of its parents")
        assert listing(tmp_path) == before == {"cwd": "dir"}


def test_write_atomic_refuses_a_link_and_leaves_no_temporary_file(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "report.html").symlink_to(victim)
    with pytest.raises(UnsafeOutputError, match=r"report.html: a symbolic link where this command writes"):
        write_atomic(tmp_path / "report.html", "<html>")
    assert victim.read_text() == "precious"
    write_atomic(tmp_path / "new.html", "<html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.html", "report.html", "victim.txt"]


def test_only_the_runs_own_chunk_files_are_cleared(tmp_path):
    # a chunk and the temporary names of a chunk being written (this version's and the last's) are the run's
    own = ["chunk-000001.arrow", "chunk-000002.arrow.tmp", ".chunk-000003.arrow.123-0a1b2c3d.tmp"]
    for name in own:
        (tmp_path / name).write_bytes(b"x")
    clear_own_files(tmp_path, OWN_CHUNK_FILE, keep=frozenset({"chunk-000001.arrow"}))
    assert [p.name for p in tmp_path.iterdir()] == ["chunk-000001.arrow"]
    (tmp_path / "chunk-1.arrow").write_bytes(b"user")  # not six digits: not a name the run writes
    with pytest.raises(UnsafeOutputError, match="chunk-1.arrow: not a file of this run"):
        clear_own_files(tmp_path, OWN_CHUNK_FILE)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunk-000001.arrow", "chunk-1.arrow"]


def test_normalised_removes_dot_and_dotdot_parts():
    assert normalised("out/a/../../out/X") == Path("out/X")
    assert normalised("") == Path(".") and normalised("a/./b/") == Path("a/b")


@pytest.mark.parametrize("planted", ["run/summary.json", "report.html"])
def test_report_refuses_a_link_where_it_reads_or_writes_its_own_file(tmp_path, monkeypatch, planted):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, [*RUN, "--out", "run"]).exit_code == 0
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_text("precious\n")
    (tmp_path / planted).unlink(missing_ok=True)
    (tmp_path / planted).symlink_to(tmp_path / "outside" / "victim.txt")
    before = listing(tmp_path)
    result = runner.invoke(app, ["report", "run", "-o", "report.html"])
    assert result.exit_code == 2, result.output
    flag = "--out " if planted == "report.html" else ""  # the page is checked as --out before the run is read
    assert result.output.strip() == (
        f"error: {flag}{planted}: a symbolic link where this command writes its own file; remove it, or choose "
        "another output"
    )
    assert listing(tmp_path) == before


@pytest.mark.parametrize("name", ["g[1", "g*", "g?x", "g{a,b}"])
def test_an_output_folder_named_like_a_glob_pattern_is_a_name(tmp_path, monkeypatch, name):
    # review of issue 28: 'run -o "g[1"' played its games, then failed reading them back ("not a readable
    # Parquet file (invalid glob pattern given)", exit 2): polars took the path for a pattern
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [*RUN, "--out", name])
    assert result.exit_code == 0, result.output
    assert (tmp_path / name / "results.parquet").is_file()
    result = CliRunner().invoke(app, ["report", name, "-o", f"{name}.html"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"{name}.html").is_file()


STUDY = """study: tiny
title: t
game: citywright
seed: 3
variants:
  v1.1: {v11}
runs:
  m2:
    players: 2
    agents: [random]
    games: 4
"""
V10 = ROOT / "configs" / "citywright" / "v1.0.yaml"


def own_folder(sandbox: Path, text: str) -> str:
    """``text`` with the short names of the study, sweep and tune below (``res/tiny``, ``res/sw``,
    ``res/tu``) as the folders the commands name them: a user's file gets its game and a hash of its
    path (``res/citywright-tiny-<8 hex>``, :mod:`balancer.naming`)."""
    import re

    from balancer.study import load_study
    from balancer.study.runner import study_folder
    from balancer.sweep import load_sweep
    from balancer.tune import load_tune

    def name(short: str) -> str:
        if short == "tiny":
            return study_folder(sandbox / "st.yaml", load_study(sandbox / "st.yaml")[0], sandbox / "res")
        if short == "sw":
            return load_sweep(sandbox / "sw.yaml", probe=False).folder
        return load_tune(sandbox / "tu.yaml", probe=False).folder

    return re.sub(r"res/(tiny|sw|tu)\b", lambda m: "res/" + name(m.group(1)), text)


@pytest.mark.parametrize(
    ("planted", "args", "refused"),
    [
        # review of issue 28: each link was followed: the study played its cell into the folder outside,
        # compare played both variants and then ended in a traceback on the planted report
        ("res/tiny", ["study", "st.yaml", "-j", "1", "-q", "-o", "r.html", "--results", "res"], "res/tiny: a symbolic"),
        (
            "res/tiny/m2",
            ["study", "st.yaml", "-j", "1", "-q", "-o", "r.html", "--results", "res"],
            "res/tiny/m2: a sym",
        ),
        ("res/tiny/m2/v1.1", ["study", "st.yaml", "-j", "1", "-q", "-o", "r.html", "--results", "res"], "v1.1: a sym"),
        ("r.html", ["study", "st.yaml", "-j", "1", "-q", "-o", "r.html", "--results", "res"], "--out r.html: a sym"),
        (
            "reports/compare-citywright-v1.1-vs-v1.0-2p-random.html",  # the agents end the name (issue 50)
            ["compare", str(V11), str(V10), "-p", "2", "-a", "random", "-n", "2", "-j", "1", "-q", "-o", "cmp"],
            "report file reports/compare-citywright-v1.1-vs-v1.0-2p-random.html: a symbolic link",
        ),
    ],
)
def test_a_link_planted_where_study_or_compare_writes_is_refused_before_playing(
    tmp_path, monkeypatch, planted, args, refused
):
    sandbox = tmp_path / "sandbox"
    outside = tmp_path / "outside"
    sandbox.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("precious")
    monkeypatch.chdir(sandbox)
    (sandbox / "st.yaml").write_text(STUDY.format(v11=V11), encoding="utf-8")
    planted, refused = own_folder(sandbox, planted), own_folder(sandbox, refused)
    (sandbox / planted).parent.mkdir(parents=True, exist_ok=True)
    (sandbox / planted).symlink_to(outside if "." not in Path(planted).name else outside / "victim.txt")
    before = listing(tmp_path)
    result = CliRunner().invoke(app, args)
    lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and refused in lines[0], result.output
    assert listing(tmp_path) == before


def test_figure_files_pair_pages_and_tuned_variants_refuse_a_planted_link(tmp_path):
    # review of issue 28: write_figure_files (study/ladder --figures), the pair page and its heatmaps,
    # and tune --write used matplotlib's savefig / write_text on the name, following a link planted there
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from balancer.report.study import write_figure_files
    from balancer.tune.write import write_variant

    outside = tmp_path / "victim.txt"
    outside.write_text("precious")
    figures = tmp_path / "figs"
    figures.mkdir()
    (figures / "s-1-m2.svg").symlink_to(outside)
    with pytest.raises(UnsafeOutputError, match="s-1-m2.svg: a symbolic link"):
        write_figure_files(Figure(), figures, "s-1-m2")
    assert sorted(p.name for p in figures.iterdir()) == ["s-1-m2.svg"]
    (tmp_path / "linked").symlink_to(figures)
    with pytest.raises(UnsafeOutputError, match="linked: a symbolic link"):
        write_figure_files(Figure(), tmp_path / "linked", "t-1-m2")
    (tmp_path / "tuned.yaml").symlink_to(outside)
    with pytest.raises(UnsafeOutputError, match="tuned.yaml: a symbolic link"):
        write_variant(tmp_path / "tuned.yaml", V11.read_text(encoding="utf-8"))
    assert outside.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figs", "linked", "tuned.yaml", "victim.txt"]


# review II of issue 28: check, baseline save, history, sweep, tune and ladder
CI_STUDY = """study: tiny-ci
title: t
game: citywright
seed: 3
variants:
  v1.1: {v11}
runs:
  m2: {{players: 2, agents: [random], games: 40}}
check:
  tolerance: {{win_rate: 0.05, metric_sd: 0.15}}
  false_alarm: 0.01
  miss_rate: 0.1
  looks: 1
"""
SWEEP = """sweep: sw
title: t
base: {v11}
seed: 3
runs:
  m4: {{players: 4, agents: [random], games: 8}}
paths:
  seat_bonus.4[3]: {{from: 0, to: 1}}
target:
  seat_win_rate: equal
"""
TUNE = """tune: tu
title: t
base: {v11}
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
SAVE = ["baseline", "save", "ci.yaml", "-o", "b.json", "--history", "h.duckdb", "-j", "1"]
CHECK = ["check", "ci.yaml", "--baseline", "b.json", "--max-games", "40", "--allow-underpowered", "-j", "1"]
CHECK += ["--junit", "j.xml", "--markdown", "m.md", "--history", "h.duckdb"]
SWEEP_ARGS = ["sweep", "sw.yaml", "-o", "s.html", "-j", "1", "--results", "res"]
TUNE_ARGS = ["tune", "tu.yaml", "-o", "t.html", "-j", "1", "--results", "res"]
LADDER = ["ladder", str(V11), "--agents", "random,greedy", "--players", "2", "--games", "4", "--bootstrap", "10"]
LADDER += ["--name", "lad", "-o", "l.html", "-j", "1", "--results", "res"]


@pytest.mark.parametrize(
    ("first", "planted", "args", "refused"),
    [
        # each of these was followed before the fix: DuckDB wrote its write-ahead log through h.duckdb.wal
        # into the folder outside (baseline save and check, exit 0); a link at h.duckdb.lock ended, after
        # every game and with the baseline written, in "Too many levels of symbolic links"; sweep, tune
        # and ladder created their variant files, cells and study file through a folder link
        (None, "h.duckdb.wal", SAVE, "h.duckdb.wal: a symbolic link"),
        (None, "h.duckdb.lock", SAVE, "h.duckdb.lock: a symbolic link"),
        (SAVE, "h.duckdb.wal", CHECK, "h.duckdb.wal: a symbolic link"),
        (None, "res/sw", SWEEP_ARGS, "res/sw: a symbolic link"),
        (None, "res/sw/variants", SWEEP_ARGS, "res/sw/variants: a symbolic link"),
        (None, "res/sw/m4/0", SWEEP_ARGS, "res/sw/m4/0: a symbolic link"),
        (None, "res/tu/candidates", TUNE_ARGS, "res/tu/candidates: a symbolic link"),
        (None, "res/tu/confirm", TUNE_ARGS, "res/tu/confirm: a symbolic link"),
        (None, "res/tu/m4/0/seg-0", TUNE_ARGS, "res/tu/m4/0/seg-0: a symbolic link"),
        (None, "res/tu/search.json", TUNE_ARGS, "res/tu/search.json: a symbolic link"),
        (None, "res/lad", LADDER, "res/lad: a symbolic link"),
        (None, "res/lad/ladder.yaml", LADDER, "res/lad/ladder.yaml: a symbolic link"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_a_link_planted_where_check_baseline_sweep_tune_or_ladder_writes_is_refused(
    tmp_path, monkeypatch, first, planted, args, refused
):
    sandbox, outside = tmp_path / "sandbox", tmp_path / "outside"
    sandbox.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("precious")
    monkeypatch.chdir(sandbox)
    for name, text in (("ci.yaml", CI_STUDY), ("sw.yaml", SWEEP), ("tu.yaml", TUNE)):
        (sandbox / name).write_text(text.format(v11=V11), encoding="utf-8")
    if first is not None:
        result = CliRunner().invoke(app, first)
        assert result.exit_code == 0, result.output
    planted, refused = own_folder(sandbox, planted), own_folder(sandbox, refused)
    (sandbox / planted).parent.mkdir(parents=True, exist_ok=True)
    is_file = "." in Path(planted).name
    (sandbox / planted).symlink_to(outside / "victim.txt" if is_file else outside)
    before = listing(tmp_path)
    result = CliRunner().invoke(app, args)
    lines = [x for x in result.output.strip().splitlines() if not x.startswith("note: compiling")]
    assert result.exit_code == 2, result.output
    assert lines[-1].startswith("error: ") and refused in lines[-1], result.output
    assert "Traceback" not in result.output
    # nothing outside the sandbox changed (the refusal may come after a tune's search has played)
    assert {k: v for k, v in listing(tmp_path).items() if not k.startswith("sandbox")} == {
        k: v for k, v in before.items() if not k.startswith("sandbox")
    }


@pytest.mark.parametrize("figures", ["", ".", "..", "/", "a/../.."])
def test_figures_and_results_folders_that_are_the_current_folder_or_a_parent_are_refused(
    tmp_path, monkeypatch, figures
):
    # review II of issue 28: `balancer history H -o p.html --figures ''` wrote its figures into the
    # current folder; --results . of sweep was accepted the same way
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sw.yaml").write_text(SWEEP.format(v11=V11), encoding="utf-8")
    for args, flag in (
        (["history", "h.duckdb", "-o", "p.html", "--figures", figures], "--figures"),
        (["sweep", "sw.yaml", "-o", "s.html", "-j", "1", "--results", figures], "--results"),
    ):
        before = listing(tmp_path)
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.output.startswith(f"error: {flag}: ")
        assert "is the current directory or one of its parents" in result.output
        assert listing(tmp_path) == before


def test_a_written_path_cannot_forge_a_line(tmp_path, monkeypatch):
    # review II of issue 28: "history: a\nFAKE: OK.html" printed a line of its own
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ci.yaml").write_text(CI_STUDY.format(v11=V11), encoding="utf-8")
    assert (
        CliRunner().invoke(app, ["baseline", "save", "ci.yaml", "-o", "b.json", "--history", "h.duckdb"]).exit_code == 0
    )
    result = CliRunner().invoke(app, ["history", "h.duckdb", "-o", "a\nFAKE: OK\x1b[31m.html"])
    assert result.exit_code == 0, result.output
    assert "history: a\\nFAKE: OK\\x1b[31m.html" in result.output
    assert not any(line.startswith("FAKE") for line in result.output.splitlines())


def test_a_second_signal_while_exiting_is_ignored():
    # review II of issue 28: SIGINT to the group under `timeout` arrived twice; the second, during the
    # exit, printed the message again and a traceback from an atexit callback
    import signal

    from balancer.entry import INTERRUPTED, _exit_on_signal

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(SystemExit) as exc:
            _exit_on_signal("interrupted")(signal.SIGINT, None)
        assert exc.value.code == INTERRUPTED
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN == signal.getsignal(signal.SIGTERM)
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
