"""How a check is shown: a rich table in the terminal, JUnit XML for CI systems (one test case per
tracked number) and a Markdown table for a pull-request comment."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

from balancer.numtext import number_text
from balancer.outdir import GENERATOR_COMMENT, normalised, write_atomic
from balancer.text import markdown_text, one_line

from .run import CheckResult, Item

COLUMNS = ("number", "baseline", "now", "difference", "interval", "verdict", "games", "detects")
"""``detects``: the smallest change the check finds with probability 1 - miss_rate at its game cap
(a number whose ``detects`` exceeds its tolerance is underpowered; the notes say so)."""


def _fmt(item: Item, value: float, signed: bool = False) -> str:
    if not math.isfinite(value):
        return "n/a"
    if item.kind == "win_rate":
        return number_text(100 * value, "+.1f") + " pp" if signed else number_text(100 * value, ".1f") + "%"
    return number_text(value, "+.3g" if signed else ".3g")


def _reference(item: Item) -> str:
    if item.test == "expect":
        if item.kind == "win_rate":
            return "target " + " ".join(
                f"{100 * float(w):g}%" if _is_number(w) else w for w in item.reference_text.split()
            )
        return "target " + item.reference_text
    return _fmt(item, item.baseline_mean)


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def row(item: Item) -> dict[str, str]:
    """The table row of one item, as text."""
    return {
        "number": item.name,
        "baseline": _reference(item),
        "now": _fmt(item, item.now),
        "difference": _fmt(item, item.difference, signed=True),
        "interval": f"{_fmt(item, item.ci_low, True)} to {_fmt(item, item.ci_high, True)}",  # as on every page
        "verdict": (item.verdict or "undecided").upper()
        + (" (underpowered)" if item.verdict == "pass" and not item.powered else ""),
        "games": f"{item.games:,}",
        "detects": "±" + _fmt(item, item.detectable, signed=True).lstrip("+") + ("" if item.powered else " (!)"),
    }


def verdict_text(result: CheckResult) -> str:
    """``PASS``, ``PASS (underpowered: k of m numbers cannot find their tolerance)`` (a check run with
    ``--allow-underpowered``: the pass is partly blind) or ``FAIL (k of m numbers)``."""
    fails = sum(i.verdict == "fail" for i in result.items)
    if not result.passed:
        return f"FAIL ({fails} of {len(result.items)} numbers)"
    weak = len(result.underpowered)
    if weak:
        return f"PASS (underpowered: {weak} of {len(result.items)} numbers cannot find their tolerance)"
    return "PASS"


def _headline(result: CheckResult) -> str:
    s = result.settings
    warned = f" with {len(result.warnings)} warning(s)" if result.warnings else ""
    return (
        f"{verdict_text(result)}{warned}: {len(result.items)} numbers of study {result.study.study}, seed {result.seed}, "
        f"{result.games:,} games in {result.seconds:.1f} s; false-alarm rate {s.false_alarm:g} over all numbers "
        f"(Bonferroni); tolerance {100 * s.tolerance.win_rate:g} points of win rate, "
        f"{s.tolerance.metric_sd:g} sd of a metric, " + _power_clause(result)
    )


def _power_clause(result: CheckResult) -> str:
    """What the check could find: the stated power only for numbers whose cap gives it."""
    weak = sum(not i.powered for i in result.items)
    p = f"{1 - result.settings.miss_rate:g}"
    if weak == 0:
        return f"each found with probability {p}"
    if weak == len(result.items):
        return f"NONE found with probability {p}: every number is underpowered (see detects)"
    return f"found with probability {p} except for {weak} underpowered numbers marked (!)"


def print_table(result: CheckResult, console=None) -> None:
    """Print the check as a rich table, then its headline and notes. Every text is a rich ``Text`` of
    :func:`balancer.text.one_line` (never markup, never a control character): a study's title or a
    variant's name cannot colour the terminal or forge a PASS line (issue 52, item 7)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    def plain(text: str, style: str = "") -> Text:
        return Text(one_line(text), style=style)

    if console is None:
        console = Console()
        if not console.is_terminal:  # CI logs: do not wrap at 80 columns
            console = Console(width=200)
    table = Table(title=plain(f"balancer check: {result.study.title}"), show_lines=False)
    for col in COLUMNS:
        table.add_column(col, justify="left" if col == "number" else "right", no_wrap=col == "number")
    for item in result.items:
        r = row(item)
        style = "red" if item.verdict == "fail" else None
        table.add_row(*(plain(r[c]) for c in COLUMNS), style=style)
    console.print(table)
    for note in result.notes:
        console.print(plain(f"note: {note}"))
    for warning in result.warnings:
        console.print(plain(f"warning: {warning}", "yellow"))
    console.print(plain(_headline(result)))


def _write(path: Path, text: str) -> Path:
    path = normalised(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return path


def write_junit(result: CheckResult, path: Path | str) -> Path:
    """JUnit XML: one ``testsuite`` per study, one ``testcase`` per tracked number (classname
    ``<study>.<run>.<variant>``), a ``failure`` element for a failed number."""
    fails = sum(i.verdict == "fail" for i in result.items)
    suites = ET.Element("testsuites", name="balancer check", tests=str(len(result.items)), failures=str(fails))
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=one_line(result.study.study),  # no control character: invalid in XML 1.0, acted on in a CI log
        tests=str(len(result.items)),
        failures=str(fails),
        errors="0",
        time=f"{result.seconds:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="verdict", value=verdict_text(result))
    for warning in result.warnings:
        ET.SubElement(props, "property", name="warning", value=one_line(warning))
    for item in result.items:
        r = row(item)
        case = ET.SubElement(
            suite,
            "testcase",
            classname=one_line(f"{result.study.study}.{item.run}.{item.variant}"),
            name=one_line(item.number + (" (expect)" if item.test == "expect" else "")),
        )
        text = (
            f"baseline {r['baseline']}, now {r['now']}, difference {r['difference']} {r['interval']}, "
            f"{item.games} games, tolerance {_fmt(item, item.tolerance, True)}"
        )
        if not item.powered:
            text = f"underpowered (detects {r['detects']}, more than the tolerance): " + text
        if item.verdict == "pass":
            text = ("PASS (underpowered): " if not item.powered else "PASS: ") + text
        if item.verdict == "fail":
            ET.SubElement(
                case, "failure", message=one_line(f"{item.name}: changed ({r['difference']})")
            ).text = one_line(text)
        else:
            ET.SubElement(case, "system-out").text = one_line(text)
    ET.indent(suites)
    head, _, body = ET.tostring(suites, encoding="unicode", xml_declaration=True).partition("\n")
    return _write(Path(path), f"{head}\n{GENERATOR_COMMENT}\n{body}\n")  # the mark: a later check may replace it


def _md_cell(text: str) -> str:
    """Text for the Markdown summary: names from files shown as written, never markup
    (:func:`balancer.text.markdown_text`: HTML and Markdown escaped, on one line)."""
    return markdown_text(text)


def write_markdown(result: CheckResult, path: Path | str) -> Path:
    """A Markdown summary for a pull-request comment: the headline, then the table (failed numbers first)."""
    items = sorted(result.items, key=lambda i: i.verdict != "fail")
    lines = [f"### balancer check: {_md_cell(result.study.title)}", ""]
    lines += [f"> ⚠️ **warning:** {_md_cell(w)}" for w in result.warnings] + ([""] if result.warnings else [])
    lines += [_md_cell(_headline(result)), ""]
    lines.append("| " + " | ".join(COLUMNS) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(COLUMNS) - 1)) + "|")
    for item in items:
        r = row(item)
        r["verdict"] = ("❌ " if item.verdict == "fail" else "✅ ") + r["verdict"]
        lines.append("| " + " | ".join(_md_cell(r[c]) for c in COLUMNS) + " |")
    lines += [""] + [f"- {_md_cell(n)}" for n in result.notes]
    lines += ["", GENERATOR_COMMENT]  # not shown when rendered; a later check may replace the file
    return _write(Path(path), "\n".join(lines).rstrip() + "\n")
