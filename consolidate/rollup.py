"""Pure rollup rendering: source items → a Markdown primer within a byte budget.

A primer lists corrections, decisions, lessons, open todos, other facts and sessions, in that order
(most actionable first, so a cut at the budget drops sessions before rules). Rendering is retried
with tighter per-item lengths; if even the tightest does not fit, the text is cut at a line
boundary and the primer is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from consolidate.text import clip, fit_bytes, utf8_len
from graph.rows import RollupSource

CLIPS = (320, 160, 100, 60, 40)
"""Per-item character limits tried in turn."""

_SECTIONS = (
    ("correction", "Corrections and rules"),
    ("decision", "Decisions"),
    ("lesson", "Lessons"),
    ("todo", "Open todos"),
    ("fact", "Facts"),
    ("session", "Sessions"),
)


SourceItem = RollupSource
"""One thing a primer mentions (a `primer.sources` row)."""


def section(item: SourceItem) -> str:
    """The primer section an item is listed in: decisions and todos have their own."""
    if item.kind == "fact":
        return item.sub if item.sub in {"decision", "todo"} else "fact"
    return item.kind


def day_key(d: date) -> str:
    """`2026-11-22`."""
    return d.isoformat()


def week_key(d: date) -> str:
    """ISO week, `2026-W47`."""
    y, w, _ = d.isocalendar()
    return f"{y}-W{w:02d}"


def month_key(d: date) -> str:
    """`2026-11`."""
    return f"{d.year:04d}-{d.month:02d}"


def week_end(d: date) -> date:
    """Sunday of `d`'s ISO week."""
    return d + timedelta(days=7 - d.isoweekday())


def _line(item: SourceItem, limit: int) -> str:
    head = clip(item.title, limit) or item.id
    if item.kind == "correction" and item.sub and item.sub != "correction":
        head = f"[{item.sub}] {head}"
    rest = item.text.strip()
    if rest and limit >= 100 and rest != item.title:
        head += f" — {clip(rest, limit // 2)}"
    return f"- {head}"


def _render(heading: str, items: Sequence[SourceItem], limit: int) -> str:
    lines = [f"# {heading}", ""]
    for name, title in _SECTIONS:
        group = sorted((i for i in items if section(i) == name), key=lambda i: (i.at, i.id))
        if not group:
            continue
        lines.append(f"## {title} ({len(group)})")
        seen: set[str] = set()
        for it in group:
            line = _line(it, limit)
            if line not in seen:  # identical lines (repeated sessions, facts) are listed once
                seen.add(line)
                lines.append(line)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render(
    heading: str, items: Iterable[SourceItem], budget: int, clips: Sequence[int] = CLIPS
) -> tuple[str, bool]:
    """Primer text within `budget` UTF-8 bytes, and whether it had to be cut (flag)."""
    its = list(items)
    text = ""
    for limit in clips:
        text = _render(heading, its, limit)
        if utf8_len(text) <= budget:
            return text, False
    return fit_bytes(text, budget), True
