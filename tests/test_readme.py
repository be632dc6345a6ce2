"""The README and the documentation site: the README stays short, every `balancer` command in it runs as
written, and every relative link of the README and of docs/ points to a file of the repository.

The README's ```sh blocks are the commands a reader types: each is run, in order, as one bash script
(`set -euo pipefail`) in a fresh working directory, so the designer's workflow (init, edit, validate,
show, compare) runs exactly as printed. Blocks of other languages (```bash: install and make) are not
run; every line starting with `balancer ` must therefore sit in a ```sh block.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from balancer.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 250

FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.S | re.M)
INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block of a Markdown text, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def registered_commands() -> set[str]:
    """Names of the CLI's commands and command groups (what may follow `balancer `)."""
    names = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands if c.callback}
    names |= {g.name for g in app.registered_groups if g.name}
    return names


def test_readme_is_at_most_250_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines, at most {MAX_README_LINES}"


def test_every_balancer_command_of_the_readme_is_in_a_block_the_test_runs():
    stray = [
        line
        for lang, body in code_blocks(README.read_text(encoding="utf-8"))
        if lang != "sh"
        for line in body.splitlines()
        if line.lstrip().startswith("balancer ")
    ]
    assert stray == [], f"balancer commands outside a ```sh block (not run by this test): {stray}"


def test_the_readme_has_the_designers_workflow():
    # the workflow is one sequence: init, validate, compare, and the report it writes
    blocks = [body for lang, body in code_blocks(README.read_text(encoding="utf-8")) if lang == "sh"]
    workflow = next((b for b in blocks if "balancer init" in b), "")
    order = [workflow.find(f"balancer {c} ") for c in ("init", "validate", "compare")]
    assert -1 not in order and order == sorted(order), workflow
    assert "--report reports/" in workflow


@pytest.mark.timeout(1200)  # the first run of a game compiles its engine (a minute or more)
def test_the_readme_commands_run_as_written(tmp_path):
    """Each ```sh block of the README, in order, as a bash script in one fresh directory; exit 0."""
    text = README.read_text(encoding="utf-8")
    blocks = [body for lang, body in code_blocks(text) if lang == "sh"]
    assert blocks, "the README has no ```sh block"
    known = registered_commands()
    # A command another part of the project is adding (`balancer show`) may not be on this branch yet:
    # its lines are left out and the test says so at the end, after every other line has run.
    missing: set[str] = set()
    scripts = []
    for body in blocks:
        kept = []
        for line in body.splitlines():
            words = line.split()
            if words[:1] == ["balancer"] and len(words) > 1 and words[1] not in known:
                missing.add(words[1])
                continue
            kept.append(line)
        scripts.append("\n".join(kept))
    bindir = Path(sys.executable).parent
    assert (bindir / "balancer").exists(), f"no balancer console script beside {sys.executable}"
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    for script in scripts:
        proc = subprocess.run(
            ["bash", "-c", "set -euo pipefail\n" + script],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=1100,
            check=False,
        )
        assert proc.returncode == 0, (
            f"README block failed (exit {proc.returncode}):\n{script}\n{proc.stdout}\n{proc.stderr}"
        )
    # what the workflow says it writes
    assert (tmp_path / "my-variant" / "variant.yaml").is_file()
    assert (tmp_path / "reports" / "my-variant.html").is_file()
    if missing:
        pytest.skip(f"README commands not registered on this branch yet, not run: {sorted(missing)}")


def markdown_files() -> list[Path]:
    """README.md and every page of the documentation site (docs/incoming/ holds notes, not pages)."""
    pages = [p for p in sorted(DOCS.rglob("*.md")) if "incoming" not in p.relative_to(DOCS).parts]
    return [README, *pages]


def relative_links(path: Path) -> list[str]:
    """Targets of the Markdown links and images of a file that point inside the repository."""
    # links inside code blocks and inline code spans are not links (`Literal[int](0)` is code)
    text = INLINE_CODE.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    targets = [m.group(1) for m in LINK.finditer(text)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file(path):
    broken = []
    for target in relative_links(path):
        file_part = target.split("#", 1)[0]
        resolved = (path.parent / file_part).resolve()
        if not resolved.exists() or not resolved.is_relative_to(ROOT):
            broken.append(target)
    assert broken == [], f"{path.relative_to(ROOT)}: links to missing files or outside the repository: {broken}"


def test_the_link_check_finds_a_broken_link(tmp_path):
    # the check above cannot pass vacuously: a page with one good and one broken link gives only the broken one
    (tmp_path / "there.md").write_text("x\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#a) [web](https://example.org) [gone](missing.md)\n```\n[code](no.md)\n```\n"
        "`Literal[int](0)` and ``a `b[c](d)` e`` [also gone](gone.md)\n"
    )
    assert relative_links(page) == ["there.md#a", "missing.md", "gone.md"]


FOREIGN = ("../shared", "DESIGN.md", "DEVELOPERS.md", "/work/")


def test_nothing_refers_to_files_outside_the_repository():
    """The README, the docs, the code, the configs and the tests name no file outside the repository."""
    roots = [README, DOCS, ROOT / "balancer", ROOT / "configs", ROOT / "tests", ROOT / "benchmarks", ROOT / "Makefile"]
    hits = []
    for root in roots:
        files = (
            [root]
            if root.is_file()
            else sorted(p for p in root.rglob("*") if p.suffix in {".md", ".py", ".yaml", ".yml", ".j2"})
        )
        for path in files:
            if path == Path(__file__).resolve() or "incoming" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            hits += [f"{path.relative_to(ROOT)}: {s}" for s in FOREIGN if s in text]
    assert hits == [], hits
