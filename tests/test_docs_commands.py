"""The docs' command lines work outside a clone (issue 50 item 5): every config argument of every
``balancer ...`` line in docs/ is a name shipped with balancer (``citywright/ci``, found by
:func:`balancer.data.locate_config` from any folder) or a file the docs themselves create (what
``balancer init DIR`` writes, or a path some command of the docs writes with -o/--out/--write).
A cheap static test: it reads the lines, it runs none of them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from balancer.data import locate_config, shipped_name

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").rglob("*.md"))
CONFIG = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$|\.ya?ml$")
OUTPUTS = ("-o", "--out", "--write", "--results")
INIT_FILES = ("variant.yaml", "study.yaml", "sweep.yaml", "tune.yaml")


def command_lines(text: str) -> list[str]:
    """Every ``balancer ...`` command: a line of a fenced block (continuations joined, '$ ' and
    comments dropped) or an inline code span."""
    found = []
    in_block = False
    pending = ""
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_block, pending = not in_block, ""
            continue
        if in_block:
            line = pending + line.strip()
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            line = re.sub(r"^(\$ |\.venv/bin/)", "", re.split(r"\s#", line)[0].strip())
            if line.startswith("balancer "):
                found.append(line)
        else:
            found += [m for m in re.findall(r"`(balancer [^`]+)`", line)]
    return found


def config_arguments(line: str) -> list[str]:
    """The arguments of a command line that name a config, study, sweep or tune file (positional
    arguments and --diff/--baseline-config values that look like a path or a shipped name)."""
    try:
        words = shlex.split(line.split(" > ")[0].split(" | ")[0])
    except ValueError:
        return []
    out, skip = [], False
    for i, w in enumerate(words[2:], 2):
        if skip:
            skip = False
            continue
        if w.startswith("-"):
            skip = w in OUTPUTS or not ("=" in w or w in ("--force", "--quiet", "-q", "--schema", "--resume"))
            if w == "--diff" and i + 1 < len(words):
                skip = False
            continue
        if "<" in w or "*" in w or "$" in w or w.endswith((".json", ".html", ".duckdb", ".parquet", ".csv")):
            continue
        if CONFIG.search(w) and not w.startswith(("results/", "reports/", "baselines/")):
            out.append(w)
    return out


def created_by_docs(lines: list[str]) -> set[str]:
    """Paths the docs' own commands write: init's folder files, and -o/--out/--write targets."""
    made: set[str] = set()
    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words[1:2] == ["init"]:
            rest = [w for i, w in enumerate(words[2:], 2) if not w.startswith("-") and words[i - 1] != "--from"]
            folder = rest[-1].rstrip("/") if rest else None
            copied = [f"{Path(b).name}.yaml" for a, b in zip(words, words[1:]) if a == "--from"]
            if folder:
                made |= {f"{folder}/{name}" for name in (*INIT_FILES, *copied)} | {folder}
        if " > " in line:
            made.add(line.split(" > ")[1].split()[0])
        for a, b in zip(words, words[1:]):
            if a in OUTPUTS:
                made.add(b)
    return made


EXAMPLES = {
    "v.yaml": "validate.md shows the file's text just above the command (a variant with three mistakes)",
    "my-study.yaml": "plan.md: a designer's own study, named as such",
}
"""Files a page shows or names as the reader's own rather than creating them with a command."""


def _all_lines() -> list[tuple[Path, str]]:
    return [(path, line) for path in DOCS for line in command_lines(path.read_text(encoding="utf-8"))]


def test_the_docs_have_command_lines_to_check():
    lines = _all_lines()
    assert len(lines) > 100 and sum(bool(config_arguments(line)) for _, line in lines) > 50


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_config_argument_is_shipped_or_made_by_the_docs(path, tmp_path, monkeypatch):
    lines = _all_lines()
    monkeypatch.chdir(tmp_path)  # outside the clone: configs/citywright/ci.yaml is no file here
    made = created_by_docs([line for _, line in lines])
    bad = []
    for line in command_lines(path.read_text(encoding="utf-8")):
        for arg in config_arguments(line):
            own = arg in made or arg in EXAMPLES or any(m.endswith("/" + arg) for m in made)  # after cd DIR
            if own or shipped_name(locate_config(arg)) is not None:
                continue
            bad.append(f"{arg!r} in: {line}")
    assert not bad, "\n".join(bad)


def test_the_ci_page_shows_its_example_workflow_as_it_is_and_needs_no_clone():
    """docs/ci-own-game.md shows docs/ci-own-game.yml whole; the workflow keeps numba's cache
    (NUMBA_CACHE_DIR in an actions/cache step), sizes the check (balancer plan) and uses no Makefile,
    no .venv of a clone and no configs/ path."""
    page = (ROOT / "docs" / "ci-own-game.md").read_text(encoding="utf-8")
    workflow = (ROOT / "docs" / "ci-own-game.yml").read_text(encoding="utf-8")
    assert f"```yaml\n{workflow}```" in page
    assert "NUMBA_CACHE_DIR" in workflow and "path: ${{ env.NUMBA_CACHE_DIR }}" in workflow
    assert "balancer plan" in workflow
    assert not any(word in workflow for word in ("make ", ".venv/", "configs/", "--allow-underpowered"))
    import yaml

    steps = yaml.safe_load(workflow)["jobs"]["check"]["steps"]
    assert any(s.get("uses", "").startswith("actions/cache@") for s in steps)


def test_the_ci_page_works_for_a_game_package_of_ones_own():
    """docs/ci-own-game.md assumed the repository holds only rule files of a shipped game: nothing
    installed a game package of the designer's own code, and the numba cache's key (balancer's pinned
    version only) never changed with that code, so a changed game was compiled again on every run and
    never saved (actions/cache saves only under a new key). The page says how to install it (-e .), the
    key follows the repository's Python files and restores the last cache."""
    import yaml

    page = (ROOT / "docs" / "ci-own-game.md").read_text(encoding="utf-8")
    workflow = (ROOT / "docs" / "ci-own-game.yml").read_text(encoding="utf-8")
    assert "pip install -e ." in page and "`-e .`" in page and "-e ." in workflow
    steps = yaml.safe_load(workflow)["jobs"]["check"]["steps"]
    (cache,) = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    assert "hashFiles('**/*.py')" in cache["with"]["key"]
    assert cache["with"]["key"].startswith(cache["with"]["restore-keys"])
