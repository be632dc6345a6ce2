"""Default names (issue 31, point 1): every command that picks a default output name (compare, study,
sweep, tune, ladder, report) takes it from the game and the input's own name, kept whole (``v1.1``),
with a short hash of the path for a file not shipped with balancer, so distinct inputs get distinct
names; finished results of another input are never replaced without ``--force`` (the library says
``force=True``); the same input run again reuses what it finished.

Games are played by the stand-in game of the sweep and tune tests (``tests/tune/standin_game.py``: a
die per seat, no compiled engine), a few games a cell, one job.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancer import api
from balancer.cli import app
from balancer.compare import default_compare_names
from balancer.naming import SOURCE_FILE, input_label, path_digest, with_game
from balancer.sim.errors import ResultsExistError
from balancer.sim.rundir import default_out_dir
from balancer.study import load_study, run_study
from balancer.study.runner import study_folder

_TUNE_TESTS = str(Path(__file__).resolve().parent / "tune")  # standin_game.py, importable by name
if _TUNE_TESTS not in sys.path:
    sys.path.insert(0, _TUNE_TESTS)

BASE_YAML = """\
game: standin
variant: base
players: [2, 4]
faces: 6
edge: {"2": [3, 0], "4": [3, 2, 1, 0]}
bonus: {"2": [0, 0], "4": [0, 0, 0, 0]}
"""
"""The stand-in game's base variant (as tests/tune/conftest.py writes it)."""

runner = CliRunner()

STUDY = """\
study: {name}
title: a study
game: standin
seed: 1
variants:
  base: {base}
runs:
  two: {{players: 2, agents: [roller], games: {games}}}
"""

SWEEP = """\
sweep: s
title: a sweep
base: {base}
seed: 1
runs:
  two: {{players: 2, agents: [roller], games: 4}}
paths:
  bonus.2[1]: [0, 1]
target:
  seat_win_rate: equal
"""

TUNE = """\
tune: t
title: a tune
base: {base}
seed: 1
runs:
  two: {{players: 2, agents: [roller], games: 6}}
space:
  bonus.2[1]: {{int: [0, 1]}}
objective:
  seat_win_rate: equal
search: {{rungs: 1, eta: 3}}
budget: {{candidates: 2}}
confirm: {{games: 4}}
response: {{steps: 1}}
"""


@pytest.fixture
def base(monkeypatch, tmp_path) -> Path:
    """The stand-in game registered, and its base variant written to ``tmp_path/configs/base.yaml``."""
    from balancer.core import registry

    monkeypatch.setitem(registry.GAMES, "standin", "standin_game")
    monkeypatch.chdir(tmp_path)  # default outputs (results/, reports/) land in the test's folder
    path = tmp_path / "configs" / "base.yaml"
    path.parent.mkdir()
    path.write_text(BASE_YAML, encoding="utf-8")
    return path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _error(result) -> str:
    """The one ``error:`` line of a refused command (exit 2)."""
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, result.output
    return lines[0]


# --------------------------------------------------------------------------------------------------
# names


def test_shipped_variants_keep_their_whole_names():
    # v1.0 and v1.1 are two names, not "v1" twice (a file stem cut at its last dot)
    assert default_compare_names("citywright/v1.0", "citywright/v1.1", 4) == "compare-citywright-v1.0-vs-v1.1-4p"
    assert input_label("citywright/v1.0", "v1.0") != input_label("citywright/v1.1", "v1.1")


def test_two_files_of_one_name_in_different_folders_get_different_names(tmp_path):
    # what `balancer init` writes twice: a/variant.yaml and b/variant.yaml, both `variant: mine`
    files = []
    for folder in ("a", "b"):
        assert invoke("init", "urgency", tmp_path / folder).exit_code == 0
        files.append(tmp_path / folder / "variant.yaml")
    names = [default_compare_names("urgency/standard", f, 2) for f in files]
    # each carries 8 hex digits of the SHA-256 of its file's resolved path
    assert names == [f"compare-urgency-standard-vs-mine-{path_digest(f)}-2p" for f in files]
    assert names[0] != names[1]
    studies = [load_study(tmp_path / folder / "study.yaml")[0] for folder in ("a", "b")]
    folders = [study_folder(tmp_path / f / "study.yaml", s) for f, s in zip("ab", studies, strict=True)]
    assert folders[0] != folders[1]
    # the study's own name (`study: urgency-mine`, which says its game) and its hash
    assert folders[0] == f"urgency-mine-{path_digest(tmp_path / 'a' / 'study.yaml')}"


def test_run_folders_differ_for_two_variant_files_of_one_name(tmp_path, monkeypatch):
    # two variants of one name (`variant: mine`, as `balancer init` writes) in a/ and b/, run with no
    # --out: each gets its own folder, results/citywright-mine-<8 hex digits of its path>-4p, where both
    # were results/citywright-mine-4p (the second refused, and --force would have replaced the first)
    monkeypatch.chdir(tmp_path)
    files = [_write(tmp_path / d / "variant.yaml", "extends: citywright/v1.1\nvariant: mine\n") for d in ("a", "b")]
    seen: list[Path] = []

    def fake_run(config, players, agents, games, seed, jobs, out, **kwargs):
        seen.append(Path(out))
        raise SystemExit(0)

    monkeypatch.setattr(api, "run", fake_run)
    for f in files:
        res = invoke("run", f, "--players", 4, "--games", 4)
        assert res.exit_code == 0, res.output
    assert seen == [Path("results") / f"citywright-mine-{path_digest(f)}-4p" for f in files]
    # the library picks the same folder as the command line
    assert default_out_dir("citywright", "mine", 4, config=files[0]) == seen[0]
    # a shipped variant keeps its bare name (no digest), as the docs' results/citywright-v1.1-4p
    assert default_out_dir("citywright", "v1.1", 4, config="citywright/v1.1") == Path("results/citywright-v1.1-4p")


def test_a_default_name_says_its_game_once():
    assert with_game("citywright", "mine-12345678") == "citywright-mine-12345678"
    assert with_game("citywright", "citywright-appendix") == "citywright-appendix"
    assert with_game("urban_sketchers", "urban-sketchers-seats") == "urban-sketchers-seats"


def test_shipped_studies_keep_their_names():
    study, _ = load_study("citywright/appendix")
    assert study_folder("citywright/appendix", study) == "citywright-appendix"


def test_sweep_and_tune_folders_differ_for_two_files_of_one_name(base, tmp_path):
    from balancer.sweep import load_sweep
    from balancer.tune import load_tune

    sweeps = [_write(tmp_path / d / "sweep.yaml", SWEEP.format(base=base)) for d in ("a", "b")]
    tunes = [_write(tmp_path / d / "tune.yaml", TUNE.format(base=base)) for d in ("a", "b")]
    s_names = [load_sweep(f, probe=False).folder for f in sweeps]
    t_names = [load_tune(f, probe=False).folder for f in tunes]
    assert s_names == [f"standin-s-{path_digest(f)}" for f in sweeps] and s_names[0] != s_names[1]
    assert t_names == [f"standin-t-{path_digest(f)}" for f in tunes] and t_names[0] != t_names[1]


def test_ladder_names_differ_for_v1_0_and_v1_1_and_for_two_user_files(tmp_path):
    from balancer.api import default_ladder_name

    assert default_ladder_name("citywright/v1.0", "citywright", "v1.0") == "ladder-citywright-v1.0"
    assert default_ladder_name("citywright/v1.1", "citywright", "v1.1") == "ladder-citywright-v1.1"
    a, b = (_write(tmp_path / d / "variant.yaml", "extends: urgency/standard\nvariant: mine\n") for d in "ab")
    names = {default_ladder_name(f, "urgency", "mine") for f in (a, b)}
    assert names == {f"ladder-urgency-mine-{path_digest(f)}" for f in (a, b)}
    # a long variant name is cut, never the hash: the folder name stays within 64 characters
    long = default_ladder_name(a, "urban_sketchers", "x" * 80)
    assert len(long) == 64 and long.endswith(f"-{path_digest(a)}")


def test_report_pages_differ_for_two_results_folders_of_one_name(tmp_path):
    one, two = tmp_path / "a" / "results" / "run", tmp_path / "b" / "results" / "run"
    assert api.default_report_page(one) != api.default_report_page(two)
    assert api.default_report_page(one).name == f"run-{path_digest(one)}.html"


# --------------------------------------------------------------------------------------------------
# never replacing another input's results without --force


def test_study_reuses_its_own_cells_and_refuses_another_study_file(base, tmp_path):
    # two study files, each in its own results folder r/s/ (as `balancer ladder` writes its study):
    # both name the folder s, so the second would replace the first's cells
    first = _write(tmp_path / "r" / "s" / "one.yaml", STUDY.format(name="s", base=base, games=4))
    other = _write(tmp_path / "r" / "s" / "two.yaml", STUDY.format(name="s", base=base, games=6))
    args = ["-o", tmp_path / "s.html", "--results", tmp_path / "r", "-j", "1", "-q"]
    assert invoke("study", first, *args).exit_code == 0
    cell = tmp_path / "r" / "s" / "two" / "base" / "run.json"
    assert json.loads(cell.read_text())["games"] == 4
    assert json.loads((tmp_path / "r" / "s" / SOURCE_FILE).read_text())["source"] == str(first.resolve())
    # the same study again: its finished cell is reused (not refused, not replayed)
    log: list[str] = []
    again = run_study(first, tmp_path / "r", jobs=1, progress=False, log=log.append)
    assert [c.reused for c in again.cells.values()] == [True] and "finished earlier, reused" in log[0]
    # the same file edited (6 games): still its own folder; the changed cell is played again
    first.write_text(STUDY.format(name="s", base=base, games=6), encoding="utf-8")
    assert invoke("study", first, *args).exit_code == 0
    assert json.loads(cell.read_text())["games"] == 6
    # another study file: refused, one line naming the folder, both files and --force; nothing replaced
    line = _error(invoke("study", other, *args))
    assert f"{tmp_path / 'r' / 's'}: holds the results of the study {first.resolve()}, not of {other.resolve()}" in line
    assert "use --force to replace them" in line and "force=True" not in line
    assert json.loads((tmp_path / "r" / "s" / SOURCE_FILE).read_text())["source"] == str(first.resolve())
    # the library says force=True
    with pytest.raises(ResultsExistError, match=r"use force=True to replace them, or choose another results_root"):
        run_study(other, tmp_path / "r", jobs=1, progress=False)
    assert invoke("study", other, *args, "--force").exit_code == 0
    assert json.loads((tmp_path / "r" / "s" / SOURCE_FILE).read_text())["source"] == str(other.resolve())


def test_two_user_studies_of_one_name_play_into_different_folders(base, tmp_path):
    one = _write(tmp_path / "a" / "study.yaml", STUDY.format(name="mine", base=base, games=2))
    two = _write(tmp_path / "b" / "study.yaml", STUDY.format(name="mine", base=base, games=2))
    for file in (one, two):
        result = invoke("study", file, "-j", "1", "-q")
        assert result.exit_code == 0, result.output
        name = f"standin-mine-{path_digest(file)}"
        assert f"report: {Path('reports') / name}.html" in result.output
        assert (tmp_path / "results" / name / "two" / "base" / "results.parquet").is_file()


def _sweep_or_tune_refusal(kind: str, text: str, base: Path, tmp_path: Path) -> None:
    """Play ``kind`` from a/<kind>.yaml; put its results folder where b/<kind>.yaml's goes (as if two
    inputs had one name); b/<kind>.yaml is then refused until --force."""
    from balancer.sweep import load_sweep
    from balancer.tune import load_tune

    load = load_sweep if kind == "sweep" else load_tune
    one, two = (_write(tmp_path / d / f"{kind}.yaml", text.format(base=base)) for d in "ab")
    args = ["--results", tmp_path / "r", "-j", "1", "-q"]
    assert invoke(kind, one, *args).exit_code == 0
    folder_one = tmp_path / "r" / load(one, probe=False).folder
    folder_two = tmp_path / "r" / load(two, probe=False).folder
    assert folder_one != folder_two and json.loads((folder_one / SOURCE_FILE).read_text())["source"] == str(
        one.resolve()
    )
    again = invoke(kind, one, *args)  # the same file again: reused, never refused
    assert again.exit_code == 0, again.output
    folder_one.rename(folder_two)
    page = Path("reports") / f"{folder_two.name}.html"
    line = _error(invoke(kind, two, *args))
    assert f"{folder_two}: holds the results of the {kind} {one.resolve()}, not of {two.resolve()}" in line
    assert "use --force to replace them, or choose another --results" in line
    assert not page.exists()
    forced = invoke(kind, two, *args, "--force")
    assert forced.exit_code == 0, forced.output
    assert json.loads((folder_two / SOURCE_FILE).read_text())["source"] == str(two.resolve()) and page.is_file()


def test_sweep_refuses_another_sweep_files_folder(base, tmp_path):
    _sweep_or_tune_refusal("sweep", SWEEP, base, tmp_path)


def test_tune_refuses_another_tune_files_folder(base, tmp_path):
    _sweep_or_tune_refusal("tune", TUNE, base, tmp_path)


def test_ladder_refuses_the_ladder_of_another_variant(base, tmp_path):
    other = _write(tmp_path / "configs" / "other.yaml", BASE_YAML.replace("variant: base", "variant: other"))
    args = ["--agents", "roller,lucky", "-p", "2", "-n", "2", "--bootstrap", "10", "--results", tmp_path / "r"]
    args += ["--name", "lad", "-j", "1", "-q"]
    first = invoke("ladder", base, *args)
    assert first.exit_code == 0, first.output
    assert invoke("ladder", base, *args).exit_code == 0  # the same ladder again
    line = _error(invoke("ladder", other, *args))
    assert f"{tmp_path / 'r' / 'lad'}: holds the ladder of {base.resolve()}, not of {other.resolve()}" in line
    assert "use --force to replace it, or choose another --name" in line
    assert invoke("ladder", other, *args, "--force").exit_code == 0


URGENCY_RUN = ["urgency/standard", "-a", "random", "-p", "2", "-n", "2", "-j", "1", "-q"]
"""A run of two games (Urgency: the stand-in game is not a compiled game, which ``balancer run`` plays)."""


def test_report_refuses_the_page_of_another_results_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one, two = tmp_path / "a" / "run", tmp_path / "b" / "run"
    for out in (one, two):
        assert invoke("run", *URGENCY_RUN, "-o", out).exit_code == 0
    page = tmp_path / "page.html"
    assert invoke("report", one, "-o", page).exit_code == 0
    assert invoke("report", one, "-o", page).exit_code == 0  # its own page: replaced
    line = _error(invoke("report", two, "-o", page))
    assert line == (
        f"error: --out {page}: is the page of another results folder than {two}; use --force to replace it, "
        "or choose another --out"
    )
    with pytest.raises(ResultsExistError, match="use force=True to replace it, or choose another path"):
        api.write_report(two, page)
    assert invoke("report", two, "-o", page, "--force").exit_code == 0
    # the page records a digest of its folder, never the folder's machine-local path
    text = page.read_text(encoding="utf-8")
    assert str(tmp_path) not in text.split("</head>")[0]
    # by default the two pages have two names
    for out in (one, two):
        assert invoke("report", out).exit_code == 0
    assert sorted(p.name for p in Path("reports").iterdir()) == sorted(
        f"urgency-run-{path_digest(out)}.html" for out in (one, two)
    )


def _comparison_folder(folder: Path, games: int) -> Path:
    """A results folder holding a small ``comparison.json`` (as the compare page tests write one)."""
    row = {"difference": 1.0, "ci_low": 0.5, "ci_high": 1.5, "p_value": 0.01, "significant": True, "n": games}
    comparison = {
        "game": "citywright", "variant_a": "v1.1", "variant_b": "mine", "games": games, "seed": 1,
        "n_players": 4, "paired": True, "pairing": "paired", "confidence": 0.95,
        "metrics": [{**row, "name": "game_turns", "from": 20.0, "to": 21.0}],
    }  # fmt: skip
    _write(folder / "comparison.json", json.dumps(comparison))
    return folder


def test_compare_refuses_the_page_of_another_comparison(tmp_path, monkeypatch):
    # `compare A B --out elsewhere` wrote its page to the default reports/compare-...html, the page of
    # the comparison in results/compare-...: it silently showed the other folder's results there
    monkeypatch.chdir(tmp_path)
    one, two = _comparison_folder(tmp_path / "one", 40), _comparison_folder(tmp_path / "two", 20)
    page = tmp_path / "reports" / "c.html"
    assert api.write_report(one, page) == page
    assert api.write_report(one, page) == page  # its own page: replaced
    before = page.read_bytes()
    with pytest.raises(ResultsExistError, match="use force=True to replace it, or choose another path"):
        api.write_report(two, page)
    assert page.read_bytes() == before  # the refusal left the page as it was
    assert api.write_report(two, page, force=True) == page
    # the command line refuses before playing anything, and names --report
    played: list[object] = []
    monkeypatch.setattr(api, "compare_variants", lambda *a, **k: played.append(a))
    res = invoke("compare", "citywright/v1.1", "citywright/v1.0", "-p", 4, "--out", one, "--report", page)
    assert _error(res) == (
        f"error: {page}: is the page of another results folder than {one}; use --force to replace it, "
        "or choose another --report"
    )
    assert played == []


# --------------------------------------------------------------------------------------------------
# force=True in the library, --force on the command line


def test_force_is_spelled_as_the_caller_knows_it(tmp_path):
    from balancer.starter import StarterError, write_starter

    out = tmp_path / "run"
    api.run("urgency/standard", players=2, agents="random", games=2, out=out)
    with pytest.raises(ResultsExistError) as lib:
        api.run("urgency/standard", players=2, agents="random", games=2, out=out)
    assert "use force=True to overwrite it, or choose another out" in str(lib.value) and "--force" not in str(lib.value)
    cli = invoke("run", *URGENCY_RUN, "-o", out)
    assert "use --force to overwrite it, or choose another --out" in _error(cli) and "force=True" not in cli.output
    write_starter("urgency", tmp_path / "init")
    with pytest.raises(StarterError, match="use force=True to replace the starter files"):
        write_starter("urgency", tmp_path / "init")
    assert "use --force to replace the starter files" in _error(invoke("init", "urgency", tmp_path / "init"))


def test_no_library_message_spells_force_as_an_option():
    # every message of the library that suggests force is a function of its spelling: no string of
    # code (docstrings are prose) outside the command line's own modules spells it "--force"
    import ast

    package = Path(__file__).resolve().parents[1] / "balancer"
    found = []
    for path in sorted(package.rglob("*.py")):
        if package / "cli" in path.parents or path == package / "outdir.py":  # outdir.py: the spellings
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        found += [
            f"{path.relative_to(package)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            if "--force" in node.value
        ]
    assert found == []
    # and the scan sees one: a literal that names the option
    assert any(
        "--force" in n.value for n in ast.walk(ast.parse('x = f"use --force {y}"')) if isinstance(n, ast.Constant)
    )


# --------------------------------------------------------------------------------------------------
# balancer games


def test_games_fits_a_100_column_terminal():
    result = invoke("games")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert max(len(x) for x in lines) <= 100, max(lines, key=len)
    # the ladder study's 35 runs are counted, not listed; validate names them all
    assert "  citywright/ladder.yaml  study citywright-ladder: 35 runs; variants v1.1" in lines
    assert lines[-1].startswith("every run, variant and value of a file: balancer validate")


@pytest.mark.parametrize("game", ["citywright", "urgency", "agueda", "urban_sketchers"])
def test_init_comment_reads_for_every_game(game, tmp_path):
    # its first line named the game after a fixed "A": "A Urgency rule variant", "A Águeda: City of
    # Umbrellas rule variant"; now the game's name follows "of" and reads for every game
    assert invoke("init", game, tmp_path / game).exit_code == 0
    first = (tmp_path / game / "variant.yaml").read_text(encoding="utf-8").splitlines()[0]
    from balancer.games import get_spec

    assert first.startswith(f"# A rule variant of {get_spec(game).display_name}. It extends the shipped variant ")
