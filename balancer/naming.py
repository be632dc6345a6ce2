"""Default names of what a command writes, and the record of what an output folder was made from.

Every command that picks a default output name (compare, study, sweep, tune, ladder, report) takes
it from here, so the rule is one: the name comes from the game and the input's own name (a variant's
``variant:``, a study's ``study:``, a sweep's ``sweep:``, a tune's ``tune:``), kept whole (``v1.1``,
never cut at a dot); an input that is not a file shipped with balancer also carries 8 hex digits of
the SHA-256 of its resolved path, so two files of one name in different folders (two ``study.yaml``
written by ``balancer init``) never share a default output.

A folder a command fills (a study's, a sweep's, a tune's) records what it was made from in
:data:`SOURCE_FILE`; :func:`claim_folder` refuses (ResultsExistError) a folder made from another
input unless ``force``. The same input is never "another": a study run again reuses and replays its
own cells. A run's page (``balancer report``) records a digest of its results folder in a ``<meta>``
(:func:`mark_page`); :func:`check_page` refuses to replace the page of another folder unless ``force``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from balancer.outdir import ResultsExistError, write_atomic

SOURCE_FILE = "source.json"
"""The file in a study's, sweep's or tune's results folder that names the input it was made from."""

__all__ = [
    "SOURCE_FILE",
    "check_folder",
    "check_page",
    "claim_folder",
    "folder_digest",
    "input_label",
    "input_source",
    "mark_page",
    "page_source",
    "path_digest",
    "safe_name",
    "with_game",
]


def safe_name(name: object) -> str:
    """A file-name-safe form of a name: characters outside ``A-Za-z0-9._-`` become '_', leading and
    trailing dots and underscores go (``"v1.1" -> "v1.1"``, ``"../x" -> "x"``, ``"" -> "variant"``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._") or "variant"


def _sha256_of_path(path: Path | str) -> str:
    """The SHA-256 (hex) of ``path``'s resolved form."""
    return hashlib.sha256(str(Path(path).resolve()).encode("utf-8", "surrogateescape")).hexdigest()


def path_digest(path: Path | str) -> str:
    """8 hex digits of the SHA-256 of ``path``'s resolved form: the same file gives the same digest
    from any working directory, two files of one name in different folders give different ones."""
    return _sha256_of_path(path)[:8]


def _shipped(path: Path | str) -> str | None:
    """``<game>/<name>`` when ``path`` (a path or a shipped name) is a file shipped with balancer."""
    from balancer.data import locate_config, shipped_name

    return shipped_name(locate_config(path))


def input_source(path: Path | str) -> str:
    """What an input is, for :data:`SOURCE_FILE`: its shipped name (``citywright/appendix``) for a
    file shipped with balancer, else its resolved path."""
    from balancer.data import locate_config

    return _shipped(path) or str(locate_config(path).resolve())


def input_label(path: Path | str, name: object, limit: int | None = None) -> str:
    """An input's part of a default name: its own ``name`` made safe (:func:`safe_name`) for a
    shipped file (unique within its game), else that name, '-' and :func:`path_digest` of the file.
    ``limit``: at most that many characters, cut from the name, never from the digest."""
    from balancer.data import locate_config

    own = safe_name(name)
    if _shipped(path) is not None:
        return own[:limit] if limit else own
    digest = path_digest(locate_config(path))
    if limit:
        own = own[: max(1, limit - len(digest) - 1)].rstrip("._-") or "x"
    return f"{own}-{digest}"


def with_game(game: str, name: str) -> str:
    """``name`` prefixed with ``<game>-`` unless it already starts with the game's name (spelled with
    '_' or '-': ``urban_sketchers`` and ``urban-sketchers-seats``), so every default name says its game."""
    key = lambda text: text.lower().replace("_", "-")  # noqa: E731
    if key(name) == key(game) or key(name).startswith(key(game) + "-"):
        return name
    return f"{safe_name(game)}-{name}"


def recorded_source(folder: Path) -> dict[str, Any] | None:
    """The record in ``folder/``:data:`SOURCE_FILE`, or None when there is none (or it cannot be read:
    a folder written before the record existed is taken as this input's own)."""
    try:
        data = json.loads((Path(folder) / SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def check_folder(
    folder: Path | str, kind: str, source: str, force: bool, where: tuple[str, str] = ("results_root", "--results")
) -> bool:
    """Whether ``folder`` records another input than ``source`` (:func:`recorded_source`; a folder
    with no record is this input's own). Raises ResultsExistError when it does and not ``force``: the
    message names the folder and both inputs, and says ``force=True`` (the library) or ``--force``
    (the command line: :meth:`~balancer.sim.errors.Spelled.cli_message`) replaces them, or another
    output (``where``: its library parameter and its option). Writes nothing."""
    folder = Path(folder)
    found = recorded_source(folder)
    earlier = found.get("source") if found else None
    if earlier is None or earlier == source:
        return False
    if not force:
        what = found.get("kind", kind) if found else kind
        raise ResultsExistError.spelled(
            lambda o: (
                f"{folder}: holds the results of the {what} {earlier}, not of {source}; "
                f"use {o.force} to replace them, or choose another {o.out}"
            ),
            where,
        )
    return True


def claim_folder(
    folder: Path | str, kind: str, source: str, force: bool, where: tuple[str, str] = ("results_root", "--results")
) -> None:
    """Record in ``folder`` (created) that it holds the results of the ``kind`` (``study``, ``sweep``,
    ``tune``) made from ``source`` (:func:`input_source`), after :func:`check_folder` (which raises
    ResultsExistError, nothing written, for a folder of another input without ``force``)."""
    folder = Path(folder)
    check_folder(folder, kind, source, force, where)
    record = {"kind": kind, "source": source}
    if recorded_source(folder) == record:
        return
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / SOURCE_FILE, json.dumps(record, indent=2) + "\n")


PAGE_META = "balancer-results"
"""The name of the ``<meta>`` of a run's page that records the results folder it was made from."""

_PAGE_META = re.compile(r'<meta name="balancer-results" content="([0-9a-f]{16})">')


def folder_digest(path: Path | str) -> str:
    """16 hex digits of the SHA-256 of a results folder's resolved path: what its page records (a
    digest, so that a published page holds no machine-local path)."""
    return _sha256_of_path(path)[:16]


def mark_page(html: str, digest: str) -> str:
    """``html`` with a ``<meta name="balancer-results">`` holding ``digest`` (:func:`folder_digest`)
    as the first element of its head."""
    return html.replace("<head>", f'<head>\n<meta name="{PAGE_META}" content="{digest}">', 1)


def page_source(page: Path | str) -> str | None:
    """The digest an existing page records (:func:`mark_page`), or None: no such file, not readable,
    or a page that records none (written by another command, or before pages recorded it)."""
    import os
    import stat

    try:  # a FIFO or a device at the page is never opened (report -o FIFO hung here: issue 52)
        if not stat.S_ISREG(os.lstat(page).st_mode):
            return None
        fd = os.open(page, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        with open(fd, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    found = _PAGE_META.search(head)
    return found.group(1) if found else None


def check_page(
    page: Path | str, results_dir: Path | str, force: bool, where: tuple[str, str] = ("path", "--out")
) -> str:
    """The digest of ``results_dir`` (:func:`folder_digest`) for its page ``page``. Raises
    ResultsExistError (``force=True`` / ``--force`` replaces it) when ``page`` is the page of another
    results folder and not ``force``; ``where``: the page's library parameter and option."""
    digest = folder_digest(results_dir)
    earlier = page_source(page)
    if earlier is not None and earlier != digest and not force:
        raise ResultsExistError.spelled(
            lambda o: (
                f"{page}: is the page of another results folder than {results_dir}; use {o.force} to "
                f"replace it, or choose another {o.out}"
            ),
            where,
        )
    return digest
