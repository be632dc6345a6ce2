"""Text read from files, made safe where it is shown (issue 52, item 7): the one place that decides how a
name from a study, a variant, a baseline or a history (a title, a variant's or a run's name, a note) is
written to a terminal or into a Markdown summary.

* :func:`terminal_text`: every character a terminal acts on rather than shows (C0 and C1 controls: ESC,
  CR, backspace ...; DEL; the bidirectional controls U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069; the
  line and paragraph separators U+2028/U+2029) written as its Python escape (``\\x1b``, ``\\r``,
  ``\\u202e``), so that a title cannot colour the terminal, move the cursor, reorder a line or forge a
  ``PASS`` line of its own. Newlines and tabs are kept; :func:`one_line` escapes a newline too.
* :func:`markdown_text`: :func:`one_line`, then every character Markdown or HTML gives a meaning to
  escaped (``<`` as ``&lt;``, ``|``, ``*``, ``[``, backquotes ... with a backslash), so that a name in a
  CI summary is shown as written: no link, no image, no HTML, no new table cell or row.

Below every floor (it imports nothing of balancer): the CLI, check's table and its Markdown use it.
"""

from __future__ import annotations

import re

__all__ = ["markdown_text", "one_line", "terminal_text"]

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]")
"""Characters a terminal would act on rather than show (tab and newline excepted)."""

_MARKDOWN = re.compile(r"([\\`*_{}\[\]#+!|~@$])")
"""Characters with a meaning in (GitHub-flavoured) Markdown inside a line (emphasis, code, links and
images, a table cell, strike-through, an @mention, maths): escaped with a backslash. ``<`` and ``>``
become entities (:data:`_HTML`)."""

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def _escaped(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def terminal_text(text: object) -> str:
    """``str(text)`` with every control character (:data:`CONTROL`) written as its Python escape:
    ``"a\\x1b[31mb" -> "a\\\\x1b[31mb"``, ``"\\u202e" -> "\\\\u202e"``; newlines and tabs kept."""
    return CONTROL.sub(_escaped, str(text))


def one_line(text: object) -> str:
    """:func:`terminal_text` with a newline (and a tab) escaped too: what a line names cannot add a line."""
    return terminal_text(str(text).replace("\n", "\\n").replace("\t", "\\t"))


def markdown_text(text: object) -> str:
    """``text`` for a Markdown document (a CI summary, a table cell): on one line (:func:`one_line`),
    HTML's ``& < > "`` as entities, and Markdown's punctuation escaped with a backslash, so that it is
    shown as written and never read as markup."""
    plain = one_line(text)
    plain = "".join(_HTML.get(c, c) for c in plain)
    return _MARKDOWN.sub(r"\\\1", plain)
