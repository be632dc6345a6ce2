"""A number as text, the one place that decides how a value that rounds to zero is written: never
``-0.0`` (nor ``+0.0``), which reads as a sign the number does not have (issue 50: an interval shown
as ``[-0.0, 8.3]``). Every page, table and terminal line formats its numbers through :func:`number_text`."""

from __future__ import annotations

_NONZERO = frozenset("123456789")


def number_text(value: float, spec: str) -> str:
    """``format(value, spec)``, unsigned when what it shows is zero: ``(-0.0004, ".1f") -> "0.0"``,
    ``(0.0, "+.1f") -> "0.0"``, ``(-0.0, ".3g") -> "0"``, ``(-0.06, ".1f") -> "-0.1"``; NaN and
    infinities as ``format`` writes them."""
    text = format(value, spec)
    if text[:1] in "+-" and not _NONZERO.intersection(text.split("e")[0]):
        return text[1:]
    return text
