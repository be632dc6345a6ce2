"""Make the fake game module of the runner tests importable by name, also in loky workers
(they copy the parent's sys.path when they start, which is after collection)."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
