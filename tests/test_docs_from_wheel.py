"""The docs' commands run as written outside a clone (issue 50, "Done when"): every ``balancer ...``
line of README.md and docs/**/*.md is run with the wheel installed (the ``installed`` fixture of
tests/wheel_env.py, built once per session), from a temporary folder that holds no clone, one fresh
folder per page (a reader following that page), in the page's order.

What runs, by explicit rules (:func:`plan`; every line gets exactly one, and the test fails on a line
that no rule covers):

* **cheap by nature** (``games``, ``show``, ``validate``, ``init``, ``plan``, ``score``, ``--help``,
  ``--version``): run exactly as written, every line.
* **plays games** (run, compare, study, sweep, tune, ladder, check, baseline, report, history, play,
  pairs): each distinct command shape (the subcommand and the set of its options) at least once,
  exactly as written except the game count, which is lowered to :data:`GAMES` (``-n``/``--games``/
  ``--max-games``, added where the line leaves the count to the default); and every line whose output
  a later line of its page reads (``run --out D`` before ``report D``). ``study``, ``sweep`` and
  ``tune`` fix their game counts in the file they name and have no option or variable that scales
  them, so for those the test runs ``SUB --help`` and ``balancer validate FILE``; ``baseline save``
  has no such option either, and ``check`` needs its baseline, so one pair of them runs as written
  (:data:`RUN_ONCE`) and the others as ``SUB --help`` and ``balancer plan FILE [--baseline B]``.
* **skipped**, each with the rule's name: placeholders (``<game>``, ``CONFIG``, ``...``, ``[--opt]``),
  paths only a clone has (``examples/``, ``tests/``, ``configs/``), a Dask scheduler's address
  (tests/test_cluster*.py starts one), ``--resume`` (it continues an interrupted run; without one it
  exits 2 by design), a file the reader writes (:data:`READERS_FILES`), and a line that only names a
  command (``balancer check``: its ``--help`` runs instead).

Each command that runs must exit 0 (or the code its page documents, :data:`EXIT_CODES`) and leave
every output it names (``-o``, ``--out``, ``--report``, ``--write``, ``--junit``, ``--markdown``,
``--history``, ``--figures``, ``--tables``, ``> FILE``).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from test_docs_commands import command_lines

ROOT = Path(__file__).resolve().parents[1]
CHECK_PAGE = ROOT / "docs" / "commands" / "check.md"
PAGES = [CHECK_PAGE, ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if p != CHECK_PAGE)]
"""docs/commands/check.md first: the baseline its ``baseline save`` writes is the one that other pages'
``check`` and ``plan --baseline`` lines read (a reader makes it once, as that page says)."""
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

GAMES = 12
"""The lowered game count: a multiple of 2, 3 and 4 players (a ladder's games are per cell, a multiple
of every player count)."""

CHEAP = {"games", "show", "validate", "init", "plan", "score"}
PLAYS = {"run", "compare", "ladder", "check", "baseline", "report", "history", "play", "pairs"}
FIXED_COUNTS = {"study", "sweep", "tune"}
"""Commands whose game counts are fixed by the file they name (no option or variable scales them)."""
RUN_ONCE = {
    "balancer baseline save citywright/ci -o baselines/citywright-ci.json",
    "balancer check citywright/ci --baseline baselines/citywright-ci.json --junit results/check/junit.xml "
    "--markdown results/check/summary.md --history results/history/citywright-ci.duckdb",
}
"""The ``baseline save`` and ``check`` lines that run as written (docs/commands/check.md's pair: 12,000
random-agent games each, 30-50 s on a loaded machine). ``baseline save`` has no option that lowers its
study's counts, and a ``check`` needs that baseline, so every other ``baseline save`` and ``check``
line runs as ``SUB --help`` and ``balancer plan FILE [--baseline B]`` (the documented way to size it),
unless a later line of its page reads what it writes (docs/ci-own-game.md's baseline)."""

FLAGS = {"--force", "--quiet", "-q", "--resume", "--json", "--assumed", "--schema", "--replay",
         "--allow-underpowered", "--matchups", "--no-matchups", "--help", "--version", "--flow", "--no-flow"}  # fmt: skip
"""Options that take no value (every other option takes the word after it)."""
COUNTS = ("-n", "--games", "--max-games")
OUTPUTS = ("-o", "--out", "--report", "--write", "--junit", "--markdown", "--history", "--figures", "--tables")

PLACEHOLDER = re.compile(r"<|\.\.\.|…|\[|^[A-Z][A-Z0-9_]*(\[?,[A-Z]\]?)*$|^[A-Z]+\[")
CLONE_ONLY = ("examples/", "tests/", "configs/")
READERS_FILES = {
    "table.txt": "docs/commands/score.md: the reader's own hand-scored table (its format is shown, not a file)",
    "board.txt": "docs/commands/score.md: the reader's own Águeda board",
    "position.txt": "docs/commands/score.md: the reader's own Urban Sketchers position",
    "v.yaml": "docs/commands/validate.md: a variant with three mistakes the reader types in",
    "my-study.yaml": "docs/commands/plan.md: a designer's own study, named as such",
}
EXIT_CODES: dict[str, int] = {}
"""Lines whose page documents an exit code other than 0 (a check that fails on purpose): none runs today."""


@dataclass
class Step:
    page: Path
    line: str
    rule: str  # "as written", "count lowered", "help", "skip: ..."
    argv: list[str] = field(default_factory=list)
    stdout_to: str | None = None
    outputs: list[str] = field(default_factory=list)


def _words(line: str) -> tuple[list[str], str | None]:
    """The command's words and the file of a ``> FILE`` redirection."""
    to = None
    if " > " in line:
        line, to = line.split(" > ", 1)
        to = to.split()[0]
    return shlex.split(line), to


def _sub(words: list[str]) -> str:
    return "baseline" if words[1] == "baseline" else words[1]


def _positionals(words: list[str]) -> list[str]:
    start = 3 if words[1] == "baseline" else 2
    out, skip = [], False
    for w in words[start:]:
        if skip:
            skip = False
        elif w.startswith("-"):
            skip = "=" not in w and w not in FLAGS
        else:
            out.append(w)
    return out


def _options(words: list[str]) -> list[str]:
    return [w.split("=")[0] for w in words[2:] if w.startswith("-") and not re.fullmatch(r"-\d+", w)]


def _named_outputs(words: list[str], to: str | None) -> list[str]:
    out = [b for a, b in zip(words, words[1:]) if a in OUTPUTS]
    return out + ([to] if to else [])


def _lowered(words: list[str]) -> list[str]:
    out = list(words)
    for i, w in enumerate(out[:-1]):
        if w in COUNTS:
            out[i + 1] = str(GAMES)
    if _sub(words) in ("run", "compare", "ladder") and not any(w in COUNTS for w in words):
        out += ["-n", str(GAMES)]
    return out


def plan() -> list[Step]:
    """Every docs command line with its rule (module docstring), in page order."""
    steps: list[Step] = []
    shapes: set[tuple[str, ...]] = set()
    for page in PAGES:
        lines = command_lines(page.read_text(encoding="utf-8"))
        seen: set[str] = set()
        parsed = []
        for line in lines:
            try:
                parsed.append((line, *_words(line)))
            except ValueError:
                parsed.append((line, [], None))
        # what later lines of the page read: their positional arguments and --baseline values
        for i, (line, words, to) in enumerate(parsed):
            step = Step(page, line, "")
            if not words or words[0] != "balancer" or len(words) < 2:
                step.rule = "skip: not one command (a shell fragment)"
            elif any(PLACEHOLDER.search(w) for w in words[1:]):
                step.rule = "skip: placeholder"
            elif any(w.startswith(CLONE_ONLY) for w in words[2:]):
                step.rule = "skip: a path only a clone has"
            elif any(w.startswith("tcp://") for w in words):
                step.rule = "skip: needs a Dask scheduler at that address"
            elif "--resume" in words:
                step.rule = "skip: continues an interrupted run (tests/test_resume.py interrupts one)"
            elif any(Path(w).name in READERS_FILES for w in words[2:]):
                step.rule = "skip: a file the reader writes"
            elif line in seen:
                step.rule = "skip: the same line ran earlier on the page"
            else:
                sub = _sub(words)
                needs_positional = sub not in ("games",) and "--help" not in words and "--version" not in words
                later = [w for _, ws, _ in parsed[i + 1 :] for w in [*_positionals(ws), *_after(ws, "--baseline")]]
                outputs = _named_outputs(words, to)
                if needs_positional and not _positionals(words):
                    step.rule, step.argv = (
                        "help: the line names the command",
                        [*words[: 3 if sub == "baseline" else 2], "--help"],
                    )
                elif sub in CHEAP or "--help" in words or "--version" in words:
                    step.rule, step.argv, step.stdout_to, step.outputs = "as written", words, to, outputs
                elif sub in FIXED_COUNTS:
                    step.rule, step.argv = "help and validate: counts fixed by the file", words
                elif sub in ("baseline", "check") and line not in RUN_ONCE and not _consumed(outputs, later):
                    step.rule, step.argv = "help and plan: counts fixed by the study", words
                elif sub in PLAYS:
                    shape = (sub, *sorted(set(_options(words))))
                    if shape in shapes and not _consumed(outputs, later):
                        step.rule = "skip: a command of this shape ran already"
                    else:
                        shapes.add(shape)
                        lowered = _lowered(words)
                        step.rule = "as written" if lowered == words else "count lowered"
                        step.argv, step.stdout_to, step.outputs = lowered, to, outputs
                else:
                    step.rule = "unknown command"
                seen.add(line)
            steps.append(step)
    return steps


def _consumed(outputs: list[str], later: list[str]) -> bool:
    """Whether a later line of the page reads one of these outputs."""
    return any(o.rstrip("/") in {w.rstrip("/") for w in later} for o in outputs)


def _after(words: list[str], option: str) -> list[str]:
    return [b for a, b in zip(words, words[1:]) if a == option]


def test_every_docs_line_has_a_rule_and_most_run():
    """No line falls through: each is run, lowered, run as --help, or skipped by a named rule; and the
    rules leave most lines to run (a rule that swallowed everything would pass the test below)."""
    steps = plan()
    assert not [s.line for s in steps if s.rule in ("", "unknown command")]
    ran = [s for s in steps if not s.rule.startswith("skip")]
    assert len(steps) > 200 and len(ran) > 0.5 * len(steps), (len(ran), len(steps))


def _call(installed, argv: list[str], cwd: Path, stdout_to: str | None) -> subprocess.CompletedProcess:
    exe = [str(installed.balancer), *argv[1:]]
    done = subprocess.run(exe, cwd=cwd, env=installed.env, capture_output=True, text=True, timeout=900)
    if stdout_to and done.returncode == 0:
        (cwd / stdout_to).write_text(done.stdout, encoding="utf-8")
    return done


def _page_free(argv: list[str]) -> bool:
    """A command that reads and writes nothing of its page's folder (every argument an option or a
    shipped name such as ``citywright/v1.1``): its result is the same on every page, so an identical
    command of an earlier page stands for it."""
    return not any(w.startswith(("my-", "results", "reports", "baselines", "figs", "tables")) or "." in Path(w).name
                   for w in argv[2:] if not w.startswith("-"))  # fmt: skip


def _calls(step: Step) -> list[tuple[list[str], str | None]]:
    if step.rule.startswith("help and validate"):
        return [(["balancer", _sub(step.argv), "--help"], None)] + [
            (["balancer", "validate", f], None) for f in _positionals(step.argv)
        ]
    if step.rule.startswith("help and plan"):
        sub = step.argv[1:3] if step.argv[1] == "baseline" else step.argv[1:2]
        base = _after(step.argv, "--baseline") + _after(step.argv, "-b")
        return [(["balancer", *sub, "--help"], None)] + [
            (["balancer", "plan", f, *(["--baseline", *base[:1]] if base else [])], None)
            for f in _positionals(step.argv)
        ]
    return [(step.argv, step.stdout_to)]


BASELINE = "baselines/citywright-ci.json"


def _prerequisites(step: Step, work: Path, check_folder: Path | None) -> None:
    """A page that reads docs/commands/check.md's baseline without making it gets a copy of the one
    that page made (prerequisite: "after balancer baseline save citywright/ci -o ..." of check.md)."""
    reads = BASELINE in step.argv and BASELINE not in _named_outputs(step.argv, None)
    if reads and check_folder is not None and not (work / BASELINE).exists() and (check_folder / BASELINE).exists():
        (work / BASELINE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(check_folder / BASELINE, work / BASELINE)


def run_steps(installed, root: Path, log=print) -> tuple[list[str], list[tuple[float, str]]]:
    """Run every step of :func:`plan` with the installed wheel, a folder per page under ``root``:
    returns the failures and each command's time."""
    failures, timings = [], []
    folders: dict[Path, Path] = {}
    done_free: set[str] = set()
    ran: set[tuple[Path, str, str | None]] = set()
    for step in plan():
        if step.rule.startswith("skip"):
            continue
        work = folders.setdefault(step.page, root / f"{len(folders):02d}-{step.page.stem}")
        work.mkdir(exist_ok=True)
        _prerequisites(step, work, folders.get(CHECK_PAGE))
        for argv, to in _calls(step):
            if (work, " ".join(argv), to) in ran:  # a --help or plan of a line above, on this page
                continue
            ran.add((work, " ".join(argv), to))
            if to is None and _page_free(argv):
                if " ".join(argv) in done_free:  # the same command, the same result: ran on an earlier page
                    continue
                done_free.add(" ".join(argv))
            t0 = time.perf_counter()
            done = _call(installed, argv, work, to)
            timings.append((time.perf_counter() - t0, " ".join(argv)))
            log(f"{timings[-1][0]:5.1f} s exit {done.returncode} {work.name}: {' '.join(argv)}")
            want = EXIT_CODES.get(step.line, 0)
            where = f"{step.page.relative_to(ROOT)}: {step.line}\n  ran: {' '.join(argv)} ({step.rule})"
            if done.returncode != want:
                tail = (done.stdout + done.stderr).strip().splitlines()[-6:]
                failures.append(f"{where}\n  exit {done.returncode}, expected {want}:\n    " + "\n    ".join(tail))
                continue
            missing = [o for o in step.outputs if argv is step.argv and not (work / o).exists()]
            if missing:
                failures.append(f"{where}\n  named outputs missing: {missing}")
    return failures, timings


def test_the_docs_commands_run_as_written_from_the_installed_wheel(installed, tmp_path):
    failures, timings = run_steps(installed, tmp_path)
    slowest = sorted(timings, reverse=True)[:5]
    print("slowest:", "; ".join(f"{t:.1f} s {c}" for t, c in slowest), f"total {sum(t for t, _ in timings):.0f} s")
    assert not failures, f"{len(failures)} docs commands failed outside a clone:\n" + "\n".join(failures)
