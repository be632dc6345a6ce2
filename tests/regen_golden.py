"""Regenerate the golden playthroughs in tests/data/golden/ (docs/architecture.md, "Tests"; OpenSpiel's playthroughs).

    python tests/regen_golden.py           # rewrite every golden file, list what changed
    python tests/regen_golden.py --check   # write nothing; exit 1 if any file would change

Each file is the stdout of ``balancer play CONFIG --players N --seed S --agents A`` for one case in
:data:`CASES`. tests/test_golden.py compares them with the current engine on every run and never
rewrites them: regenerating is a deliberate act, for an intended rule or agent change, and the
resulting diff of the files belongs in the same reviewed commit as that change.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "data" / "golden"


@dataclass(frozen=True)
class Case:
    """One golden playthrough: ``config`` relative to the repository root, player count, seed, agents."""

    config: str
    players: int
    seed: int
    agents: str = "greedy"

    @property
    def filename(self) -> str:
        """citywright-v1.1-2p-seed7.txt (one agent everywhere), citywright-v1.1-2p-random-greedy-seed7.txt."""
        path = Path(self.config)
        who = "" if self.agents == "greedy" else "-" + self.agents.replace(",", "-")
        return f"{path.parent.name}-{path.stem}-{self.players}p{who}-seed{self.seed}.txt"

    @property
    def argv(self) -> list[str]:
        return [
            "play",
            str(ROOT / self.config),
            "--players",
            str(self.players),
            "--seed",
            str(self.seed),
            "--agents",
            self.agents,
        ]

    @property
    def command(self) -> str:
        return "balancer " + " ".join([self.argv[0], self.config, *self.argv[2:]])


CASES: tuple[Case, ...] = (
    Case("configs/citywright/v1.1.yaml", 1, 7),
    Case("configs/citywright/v1.1.yaml", 2, 7),
    Case("configs/citywright/v1.1.yaml", 3, 7),
    Case("configs/citywright/v1.1.yaml", 4, 7),
    Case("configs/citywright/v1.1.yaml", 2, 7, "random,greedy"),
    Case("configs/citywright/v1.0.yaml", 2, 7),
    Case("configs/agueda/v1.yaml", 1, 7),
    Case("configs/agueda/v1.yaml", 2, 7),
    Case("configs/agueda/v1.yaml", 4, 7),
    Case("configs/agueda/v1.yaml", 5, 7),
    Case("configs/agueda/v1.yaml", 3, 7, "random,greedy,lookahead"),
    Case("configs/urgency/no-cards.yaml", 2, 7),
    Case("configs/urgency/standard.yaml", 2, 7, "greedy+ibex,expectimax+bull"),
    Case("configs/urgency/full-force.yaml", 2, 3, "random+eagle,greedy+tortoise"),
    Case("configs/urban_sketchers/base.yaml", 2, 7),
    Case("configs/urban_sketchers/base.yaml", 4, 7),
    Case("configs/urban_sketchers/base.yaml", 3, 7, "random,greedy,greedy"),
)


def render(case: Case) -> str:
    """The transcript of ``case`` as `balancer play` prints it (typer's CliRunner), ending in a newline.
    Raises RuntimeError if the command fails."""
    from typer.testing import CliRunner

    from balancer.cli import app

    result = CliRunner().invoke(app, case.argv)
    if result.exit_code != 0:
        raise RuntimeError(f"{case.command} exited with {result.exit_code}:\n{result.output}")
    return result.stdout.rstrip("\n") + "\n"


def diff(expected: str, actual: str, name: str) -> str:
    """Unified diff from the stored file to the current transcript."""
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"stored {name}",
            tofile="current transcript",
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if any file would change")
    args = parser.parse_args(argv)
    changed = 0
    if not args.check:
        GOLDEN.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        path = GOLDEN / case.filename
        text = render(case)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            print(f"unchanged  {path.relative_to(ROOT)}")
            continue
        changed += 1
        status = "created" if old is None else "changed"
        if old is not None:
            print(diff(old, text, case.filename), end="")
        if args.check:
            print(f"would be {status}: {path.relative_to(ROOT)}  ({case.command})")
        else:
            path.write_text(text, encoding="utf-8", newline="\n")
            print(f"{status:<10} {path.relative_to(ROOT)}  ({case.command})")
    known = {case.filename for case in CASES}
    for stale in sorted(p for p in GOLDEN.glob("*.txt") if p.name not in known):
        print(f"stale      {stale.relative_to(ROOT)} (no case in CASES; delete it if that is intended)")
    if args.check:
        return 1 if changed else 0
    if changed:
        print(f"{changed} file(s) written: review the diff (git diff tests/data/golden) before committing.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
