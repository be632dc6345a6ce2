"""What a run records of where its numbers came from: the library versions (:func:`package_versions`),
a fingerprint of the code that plays the game (:func:`engine_sha256`) and the command that replays
one game (:func:`replay_command`)."""

from __future__ import annotations

import hashlib
import platform
from pathlib import Path

from balancer.core.registry import GameSpec
from balancer.core.replay import replay_command as replay_command  # re-exported: the runner's import

_VERSION_PACKAGES = ("numpy", "numba", "polars", "pyarrow", "joblib", "scipy", "matplotlib")

SHARED_ENGINE_CODE = ("core/kernel.py", "core/protocol.py", "agents")
"""Code every game's play depends on beside its own package (paths under ``balancer/``): the compiled
interface and the generic agents (MCTS) over it."""


def package_versions() -> dict[str, str]:
    """Versions of balancer, Python and the libraries a result depends on ('missing' if absent)."""
    from importlib import metadata

    from balancer.version import __version__

    out = {"balancer": __version__, "python": platform.python_version()}
    for name in _VERSION_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "missing"
    return out


def engine_sha256(spec: GameSpec) -> str:
    """SHA-256 of the code that plays the game: every ``.py`` file of its package and of
    :data:`SHARED_ENGINE_CODE` (name and content, sorted) and the balancer version. Finished results
    are reused only under the same engine, so a change to the rules or the agents is never mixed with
    numbers played before it."""
    from balancer.version import __version__

    digest = hashlib.sha256(f"balancer {__version__}\n".encode())
    root = spec.source
    files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
    for path in files:
        digest.update(
            str(path.relative_to(root.parent if root.is_file() else root)).encode() + b"\0" + path.read_bytes() + b"\0"
        )
    package = Path(__file__).resolve().parents[1]  # balancer/
    for name in SHARED_ENGINE_CODE:
        shared = package / name
        for path in sorted(shared.rglob("*.py")) if shared.is_dir() else [shared] if shared.exists() else []:
            digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    for source in _outside_agent_code(spec, package):
        for path in sorted(source.rglob("*.py")) if source.is_dir() else [source]:
            digest.update(f"{source.name}/{path.relative_to(source) if source.is_dir() else ''}".encode())
            digest.update(b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _outside_agent_code(spec: GameSpec, package: Path) -> list[Path]:
    """The packages (or modules) of the generic agents seated at ``spec``'s tables that live outside
    balancer (another distribution's ``balancer.agents`` entry point): their code plays the game too."""
    import sys

    found: dict[Path, None] = {}
    for agent in spec.seated:
        module = sys.modules.get(type(agent).__module__)
        file = getattr(module, "__file__", None)
        if not file:
            continue
        path = Path(file).resolve()
        source = path.parent if path.name == "__init__.py" or path.parent.joinpath("__init__.py").exists() else path
        if package not in source.parents and source != package:
            found[source] = None
    return sorted(found)
