"""Make the stand-in kernels (mcts_standins.py) importable by name, from the tests and from
benchmarks/bench_mcts.py."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
