"""Regenerate tests/data/digests.json: a digest of fixed-seed results per game and agent table (issue 51).

    python tests/regen_digests.py           # rewrite the file, list the cases whose numbers moved
    python tests/regen_digests.py --check   # write nothing; exit 1 if any digest would change

Each case plays a few games of a shipped variant with a fixed seed (a greedy mirror, random players,
one table with a tiny mcts budget) and hashes every row of its results (``results.parquet``'s
columns, sorted by game and seat, as CSV). tests/test_digests.py compares them with the current
code on every run and never rewrites them, so any change to a number (a rule, a deal, an agent, a
seeding, a column) fails until it is accepted on purpose: regenerate with this script, add a line to
CHANGELOG.md saying which numbers moved and why (a ruling, a bug, an agent change), and commit both
with the change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIGESTS = Path(__file__).resolve().parent / "data" / "digests.json"


@dataclass(frozen=True)
class Case:
    """``games`` games of ``config`` (relative to the repository root) at ``players`` seats, ``agents``, ``seed``."""

    config: str
    players: int
    agents: str
    games: int
    seed: int = 51

    @property
    def key(self) -> str:
        return f"{Path(self.config).parent.name}/{Path(self.config).stem} {self.players}p {self.agents} x{self.games} seed {self.seed}"

    @property
    def command(self) -> str:
        return (
            f"balancer run {self.config} --players {self.players} --agents {self.agents} "
            f"--games {self.games} --seed {self.seed}"
        )


def _cases() -> tuple[Case, ...]:
    variants = {  # the variant and its (mirror, random) player counts; Urgency seats two
        "citywright": ("configs/citywright/v1.1.yaml", 4, 3),
        "urgency": ("configs/urgency/standard.yaml", 2, 2),
        "agueda": ("configs/agueda/v1.yaml", 4, 3),
        "urban_sketchers": ("configs/urban_sketchers/base.yaml", 4, 3),
    }
    out: list[Case] = []
    for config, mirror, random in variants.values():
        out += [
            Case(config, mirror, "greedy", 8),
            Case(config, random, "random", 8),
            Case(config, 2, "mcts@4,greedy", 2),
        ]
    return tuple(out)


CASES: tuple[Case, ...] = _cases()


def digest(case: Case) -> dict[str, object]:
    """``{"rows": n, "sha256": ...}`` of the case's results, played now in a temporary directory."""

    import balancer

    with tempfile.TemporaryDirectory() as tmp:
        result = balancer.run(
            ROOT / case.config,
            players=case.players,
            agents=case.agents,
            games=case.games,
            seed=case.seed,
            jobs=1,
            out=Path(tmp) / "run",
        )
        frame = result.frame.sort(["game_index", "seat"])
    text = frame.select(sorted(frame.columns)).write_csv(float_precision=None)
    assert isinstance(text, str)
    return {"rows": frame.height, "sha256": hashlib.sha256(text.encode()).hexdigest()}


def current() -> dict[str, dict[str, object]]:
    """The digest of every case, played now."""
    return {case.key: digest(case) for case in CASES}


def read() -> dict[str, dict[str, object]]:
    return json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.exists() else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a digest would change")
    args = parser.parse_args(argv)
    old, new = read(), current()
    moved = sorted(k for k in new.keys() | old.keys() if old.get(k) != new.get(k))
    for key in moved:
        print(f"{'changed' if key in old and key in new else 'added' if key in new else 'removed'}: {key}")
    if args.check:
        return 1 if moved else 0
    DIGESTS.parent.mkdir(parents=True, exist_ok=True)
    DIGESTS.write_text(json.dumps(new, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if moved:
        print(f"wrote {DIGESTS.relative_to(ROOT)}: add a line to CHANGELOG.md saying which numbers moved and why")
    return 0


if __name__ == "__main__":
    sys.exit(main())
